// The error a request ends with, once neither a retry nor a turn is left: from the last
// attempt's answer (or its absence) and why it stopped.
import type { INode, NodeApiError } from 'n8n-workflow';

import type { AttemptResult } from './attempt';
import type { ResolvedCredential } from './credentials';
import { networkError } from './connectionErrors';
import {
	badBodyError,
	dailyQuotaError,
	httpStatusError,
	mayHaveBeenApplied,
	waitCapError,
} from './errors';
import type { ErpErrorContext } from './errors';
import type { HttpMethod } from './rateLimit';

export type StopReason =
	| { reason: 'notRetryable' | 'exhausted' }
	| {
			reason: 'dailyQuota' | 'waitCap';
			waitSeconds?: number;
			waitedSeconds?: number;
			estimated?: boolean;
	  };

export function failureError(
	resolved: ResolvedCredential,
	last: Extract<AttemptResult, { done: false }>,
	stop: StopReason,
	attempts: number,
	maxWaitSeconds: number,
	context: ErpErrorContext,
): NodeApiError {
	const node: INode = resolved.node;
	const { answer } = last;
	if (answer === undefined) {
		return networkError(node, last.networkCode, resolved.host, context, attempts, last.failureText);
	}
	if (stop.reason === 'dailyQuota') {
		return dailyQuotaError(node, answer.body, stop.waitSeconds, last.atMs, context);
	}
	if (stop.reason === 'waitCap') {
		return waitCapError(
			node,
			answer.status,
			answer.body,
			stop.waitSeconds ?? 0,
			maxWaitSeconds,
			context,
			stop.waitedSeconds,
			stop.estimated,
		);
	}
	if (last.outcome.kind === 'badBody') return badBodyError(node, answer.status, context);
	let extra: string | undefined;
	if (stop.reason === 'exhausted') {
		extra = `Gave up after ${attempts} attempts.`;
	} else if (answer.status >= 500) {
		extra = mayHaveBeenApplied(context.method as HttpMethod, context.resendable);
	}
	return httpStatusError(node, answer.status, answer.body, context, extra);
}
