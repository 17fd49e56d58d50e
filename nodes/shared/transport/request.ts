// The attempt loop: one request, each attempt in its turn on the key (pacer.ts, attempt.ts).
// - A 429 is no retry: the pacer has slowed the key down, and the request waits its turn again,
//   first in line, unless that would pass Max Rate-Limit Wait (counted from the first attempt); an
//   exhausted daily quota (`daily_quota_exceeded`) fails at once.
// - After a lost answer (5xx, reset, timeout, unreadable body), GET and DELETE are resent (or what
//   `resendable` says); any method after a refused connection. At most MAX_RETRIES, with
//   full-jitter exponential back-off, or a 5xx's Retry-After when it names one.
import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import { attemptOnce, httpOptions, requestPath } from './attempt';
import type { AttemptOutcome, AttemptResult } from './attempt';
import { currentSecrets, resolveCredential } from './credentials';
import type { ResolvedCredential } from './credentials';
import {
	badBodyError,
	dailyQuotaError,
	httpStatusError,
	mayHaveBeenApplied,
	networkError,
	waitCapError,
} from './errors';
import { clockMs, takeTurn, wait } from './pacer';
import { DEFAULT_MAX_WAIT_SECONDS, isIdempotentMethod } from './settings';
import type { ErpContext, ErpRequest, ErpRequestSettings, HttpMethod } from './settings';

/** Retries after a lost answer (never a 429). */
export const MAX_RETRIES = 5;
const BACKOFF_BASE_SECONDS = 0.5;
export const BACKOFF_CAP_SECONDS = 30;

/** Network codes after which the request may have been processed (never after ECONNREFUSED). */
const TRANSIENT_CODES =
	/^(ECONNRESET|ETIMEDOUT|ECONNABORTED|ESOCKETTIMEDOUT|EPIPE|EAI_AGAIN|ERR_BAD_RESPONSE)$/;

/** Full-jitter backoff: a random wait in [0, min(cap, base * 2^retry)]; retry 0 is the first. */
export function backoffSeconds(retry: number, random: () => number): number {
	return random() * Math.min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** retry);
}

type Decision =
	| { action: 'retry'; waitSeconds: number }
	/** Wait for a turn again (a 429 whose wait fits in Max Rate-Limit Wait). */
	| { action: 'turn' }
	| {
			action: 'fail';
			reason: 'notRetryable' | 'exhausted' | 'waitCap' | 'dailyQuota';
			/** The wait the server asked for (or the pacer chose: `estimated`). */
			waitSeconds?: number;
			waitedSeconds?: number;
			estimated?: boolean;
	  };

// What follows a failed attempt. A 429: another turn, or a failure on time (`closedForMs`: how long
// the key stays closed from now; `waitedMs`: since the first attempt). Anything else: the retry
// policy in this file's header (`retry`: retries already made).
export function decide(
	outcome: AttemptOutcome,
	request: { method: HttpMethod; resendable?: boolean },
	times: { retry: number; maxWaitSeconds: number; waitedMs: number; closedForMs: number },
	random: () => number,
): Decision {
	const { retry, maxWaitSeconds } = times;
	const resendable = request.resendable ?? isIdempotentMethod(request.method);
	if (outcome.kind === 'status' && outcome.status === 429) {
		if (outcome.apiCode === 'daily_quota_exceeded') {
			return { action: 'fail', reason: 'dailyQuota', waitSeconds: outcome.info.retryAfterSeconds };
		}
		const waitSeconds = Math.max(0, times.closedForMs) / 1000;
		const waitedSeconds = Math.max(0, times.waitedMs) / 1000;
		if (waitedSeconds + waitSeconds <= maxWaitSeconds) return { action: 'turn' };
		const named =
			outcome.info.retryAfterSeconds !== undefined || outcome.info.resetSeconds !== undefined;
		return { action: 'fail', reason: 'waitCap', waitSeconds, waitedSeconds, estimated: !named };
	}
	// A refused connection was never received; a lost answer is resent only when resendable.
	const refused = outcome.kind === 'network' && outcome.code === 'ECONNREFUSED';
	const lost =
		(outcome.kind === 'status' && outcome.status >= 500) ||
		outcome.kind === 'badBody' ||
		(outcome.kind === 'network' && TRANSIENT_CODES.test(outcome.code ?? ''));
	if (!refused && !(lost && resendable)) return { action: 'fail', reason: 'notRetryable' };
	if (retry >= MAX_RETRIES) return { action: 'fail', reason: 'exhausted' };
	const asked = outcome.kind === 'status' ? outcome.info.retryAfterSeconds : undefined;
	if (asked !== undefined) {
		if (asked > maxWaitSeconds) return { action: 'fail', reason: 'waitCap', waitSeconds: asked };
		return { action: 'retry', waitSeconds: asked };
	}
	return { action: 'retry', waitSeconds: Math.min(backoffSeconds(retry, random), maxWaitSeconds) };
}

/** One request to the ERP API: the parsed JSON body (`{}` for an empty answer). */
export async function erpApiRequest(
	this: ErpContext,
	request: ErpRequest,
	settings: ErpRequestSettings = {},
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
	return (await erpApiResponse.call(this, request, settings)).body;
}

/** erpApiRequest, with the answer's status code (e.g. to tell a 204 from a 200 with `{}`). */
export async function erpApiResponse(
	this: ErpContext,
	request: ErpRequest,
	settings: ErpRequestSettings = {},
): Promise<{ statusCode: number; body: unknown }> {
	return await send(this, await resolveCredential(this, request.itemIndex), request, settings);
}

export async function send(
	context: ErpContext,
	resolved: ResolvedCredential,
	request: ErpRequest,
	settings: ErpRequestSettings,
): Promise<{ statusCode: number; body: unknown }> {
	const maxWaitSeconds = settings.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
	// Waits end early when the execution is cancelled (execute contexts have the signal).
	const signal = (context as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	const startedAtMs = clockMs();
	const deadlineMs = startedAtMs + maxWaitSeconds * 1000;
	const options = httpOptions(context, resolved, request, settings);

	let first = false;
	let retry = 0;
	// n8n 1.x ignores `except: [401]` and hands an expired token's 401 back as an answer: that
	// attempt is sent again once with status errors thrown, so that n8n refreshes the token.
	let refresh: 'not yet' | 'now' | 'done' = 'not yet';
	for (let attempts = 1; ; attempts++) {
		const { ratePerMinute } = resolved;
		const turn = await takeTurn(resolved.paceKey, { deadlineMs, signal, first, ratePerMinute });
		const sent = refresh === 'now' ? { ...options, ignoreHttpStatusErrors: false } : options;
		if (refresh === 'now') refresh = 'done';
		const result = await attemptOnce(context, resolved, sent, turn, request.itemIndex);
		if (result.done) return { statusCode: result.statusCode, body: result.body };
		first = true;
		const { outcome } = result;
		const oAuth2 = resolved.authentication === 'oAuth2';
		if (refresh === 'not yet' && oAuth2 && outcome.kind === 'status' && outcome.status === 401) {
			refresh = 'now';
			continue;
		}
		const waitedMs = result.atMs - startedAtMs;
		const closedForMs = turn.pace.closedUntilMs - result.atMs;
		const times = { retry, maxWaitSeconds, waitedMs, closedForMs };
		const decision = decide(outcome, request, times, Math.random);
		if (decision.action === 'turn') continue;
		if (decision.action === 'retry') {
			retry++;
			await wait(decision.waitSeconds * 1000, signal);
			continue;
		}
		throw await failure(context, resolved, request, result, decision, attempts, maxWaitSeconds);
	}
}

/** The error a request ends with, from its last attempt and why it stopped. */
async function failure(
	context: ErpContext,
	resolved: ResolvedCredential,
	request: ErpRequest,
	last: Extract<AttemptResult, { done: false }>,
	stop: Extract<Decision, { action: 'fail' }>,
	attempts: number,
	maxWaitSeconds: number,
): Promise<NodeApiError> {
	const { node } = resolved;
	const errorContext = {
		...request,
		path: requestPath(request),
		authentication: resolved.authentication,
		secrets: await currentSecrets(context, resolved),
	};
	const { answer, outcome } = last;
	if (outcome.kind === 'network' || answer === undefined) {
		const network = outcome.kind === 'network' ? outcome : undefined;
		return networkError(node, network?.code, resolved.host, errorContext, attempts, network?.text);
	}
	if (stop.reason === 'dailyQuota') {
		return dailyQuotaError(node, answer.body, stop.waitSeconds, errorContext);
	}
	if (stop.reason === 'waitCap') {
		return waitCapError(node, answer, stop, maxWaitSeconds, errorContext);
	}
	if (outcome.kind === 'badBody') return badBodyError(node, answer.status, errorContext);
	let extra: string | undefined;
	if (stop.reason === 'exhausted') {
		extra = `Gave up after ${attempts} attempts.`;
	} else if (answer.status >= 500) {
		extra = mayHaveBeenApplied(request.method, request.resendable);
	}
	return httpStatusError(node, answer.status, answer.body, errorContext, extra);
}
