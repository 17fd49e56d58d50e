// One attempt: the request sent through n8n's helper with the slot it took, the slot given back
// with what the answer said, and what happened classified for the retry decision.
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import {
	answerFromError,
	isNotConnected,
	isReconnectNeeded,
	isTlsVersionRefusal,
	isUnreadableBody,
	networkCodeFromError,
} from './classify';
import type { HttpAnswer } from './classify';
import type { ResolvedCredential } from './credentials';
import { notConnectedError, reconnectError, tlsVersionError } from './connectionErrors';
import { errorChain } from './errorJson';
import { settle } from './pacing';
import type { Slot } from './pacing';
import { readRateLimitHeaders } from './rateLimit';
import type { AttemptOutcome, HttpMethod } from './rateLimit';
import type { ErpContext } from './types';

export type AttemptResult =
	| { done: true; statusCode: number; body: unknown }
	| {
			done: false;
			outcome: AttemptOutcome;
			/** The HTTP answer; undefined when there was none (network failure). */
			answer?: HttpAnswer;
			networkCode?: string;
			failureText?: string;
			/** When the outcome was known. */
			atMs: number;
	  };

function apiCodeOf(body: unknown): string | undefined {
	const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
	return typeof code === 'string' ? code : undefined;
}

/**
 * Sends once and settles `slot`. Throws at once (no retry can help) when the OAuth2 credential
 * must be reconnected or is not connected, or TLS 1.3 is refused.
 */
export async function attemptOnce(
	context: ErpContext,
	resolved: ResolvedCredential,
	options: IHttpRequestOptions,
	slot: Slot,
	itemIndex: number | undefined,
): Promise<AttemptResult> {
	const credentialOptions = resolved.credentialsDecrypted
		? { credentialsDecrypted: resolved.credentialsDecrypted }
		: undefined;
	let answer: HttpAnswer | undefined;
	let networkCode: string | undefined;
	let failureText: string | undefined;
	try {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			resolved.credentialType,
			{ ...options, headers: { ...options.headers } },
			credentialOptions,
		)) as { statusCode: number; headers: IDataObject; body: unknown };
		answer = { status: response.statusCode, headers: response.headers ?? {}, body: response.body };
	} catch (error) {
		const chain = errorChain(error);
		const fatal = isReconnectNeeded(chain)
			? reconnectError(resolved.node, itemIndex)
			: isNotConnected(chain)
				? notConnectedError(resolved.node, itemIndex)
				: isTlsVersionRefusal(chain)
					? tlsVersionError(resolved.node, resolved.host, itemIndex)
					: undefined;
		if (fatal) {
			settle(slot);
			throw fatal;
		}
		answer = answerFromError(chain);
		if (answer === undefined) {
			networkCode = networkCodeFromError(chain);
			failureText = chain
				.map((entry) => entry.message)
				.find((m): m is string => typeof m === 'string' && m !== '');
		}
	}

	const atMs = Date.now();
	if (answer === undefined) {
		settle(slot);
		return {
			done: false,
			outcome: { kind: 'network', code: networkCode },
			networkCode,
			failureText,
			atMs,
		};
	}
	const info = readRateLimitHeaders(answer.headers, atMs);
	const apiCode = apiCodeOf(answer.body);
	settle(slot, { status: answer.status, apiCode, info });
	if (answer.status >= 200 && answer.status < 300) {
		if (!isUnreadableBody(answer.body, answer.status, options.method as HttpMethod)) {
			const empty = answer.body === undefined || answer.body === null || answer.body === '';
			return { done: true, statusCode: answer.status, body: empty ? {} : answer.body };
		}
		return { done: false, outcome: { kind: 'badBody', info }, answer, atMs };
	}
	return {
		done: false,
		outcome: { kind: 'status', status: answer.status, apiCode, info },
		answer,
		atMs,
	};
}
