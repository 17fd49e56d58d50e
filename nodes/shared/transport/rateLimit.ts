// Rate-limit headers and retry arithmetic. Pure functions (time and randomness are parameters) so
// that unit tests with fake time cover them; the transport only wires them to real time and `sleep`.
// The pacing budget's arithmetic is in budget.ts; the header dialects read into it, dialects.ts.
import { header, nonNegativeNumber, readBudget } from './dialects';
import type { DialectName, Headers } from './dialects';

/** Retries after the first attempt, whatever the cause. */
export const MAX_RETRIES = 5;
/** Exponential backoff: the n-th retry waits a uniform random time in [0, min(cap, base * 2^n)]. */
export const BACKOFF_BASE_SECONDS = 0.5;
export const BACKOFF_CAP_SECONDS = 30;
/** Added to a wait for a rate-limit window so that the request lands after the reset, not on it. */
export const RESET_MARGIN_SECONDS = 0.02;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** `Retry-After` in seconds from now: delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined || value === '') return undefined;
	const seconds = nonNegativeNumber(value);
	if (seconds !== undefined) return seconds;
	if (!/^[A-Za-z]/.test(value)) return undefined; // an HTTP date starts with the day name
	const dateMs = Date.parse(value);
	if (Number.isNaN(dateMs)) return undefined;
	return Math.max(0, (dateMs - nowMs) / 1000);
}

/** What one answer's headers say about the rate limit. */
export interface RateLimitInfo {
	limit?: number;
	remaining?: number;
	/** Seconds until the current window resets, in whichever dialect the server spoke. */
	resetSeconds?: number;
	/** Seconds to wait before retrying (`Retry-After`), on a 429 or 503. */
	retryAfterSeconds?: number;
	/** The header dialect the budget was read from; undefined when none was sent. */
	dialect?: DialectName;
}

/** The one reader of rate-limit headers for every request path (nodes, lists, lookups, triggers). */
export function readRateLimitHeaders(headers: Headers | undefined, nowMs: number): RateLimitInfo {
	const { limit, remaining, resetSeconds, dialect } = readBudget(headers, nowMs);
	return {
		limit,
		remaining,
		resetSeconds,
		retryAfterSeconds: parseRetryAfter(header(headers, 'retry-after'), nowMs),
		dialect,
	};
}

/** Full-jitter exponential backoff for the retry number `retry` (0 for the first retry). */
export function backoffSeconds(retry: number, random: () => number): number {
	const ceiling = Math.min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** retry);
	return random() * ceiling;
}

/** Network error codes that prove the request never reached the server: safe to resend any method. */
export const NEVER_SENT_CODES = ['ECONNREFUSED'];
/** Network error codes after which the request may or may not have been processed. */
export const TRANSIENT_CODES = [
	'ECONNRESET',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ERR_BAD_RESPONSE',
];

/**
 * Methods that can be resent after an answer was lost: GET, and DELETE (deleting twice is harmless).
 * PUT is idempotent by HTTP definition, but only the API Request operation sends it, to endpoints
 * the node does not know: it is not resent (see `decideRetry`'s `resendable`).
 */
export function isIdempotentMethod(method: HttpMethod): boolean {
	return method === 'GET' || method === 'DELETE';
}

/** What happened on one attempt, as far as retrying is concerned. */
export type AttemptOutcome =
	| { kind: 'status'; status: number; apiCode?: string; info: RateLimitInfo }
	| { kind: 'badBody'; info: RateLimitInfo }
	| { kind: 'network'; code?: string };

export type RetryDecision =
	| { action: 'retry'; waitSeconds: number }
	| {
			action: 'fail';
			reason: 'notRetryable' | 'exhausted' | 'waitCap';
			/** The wait the server asked for, when the reason is waitCap. */
			waitSeconds?: number;
	  };

/**
 * Decides whether a failed attempt is retried and after how long. A 429 is not for this policy:
 * the attempt loop hands every 429 to `onRateLimited` (rateLimited.ts) first, a turn or a failure
 * on time, never a retry.
 * `retry` is the number of retries already made for this request. A wait the server asks for
 * (Retry-After on a 5xx) longer than `maxWaitSeconds` fails; our own backoff is capped.
 * `resendable`: whether the request may be resent after its answer was lost (5xx, reset, timeout,
 * unreadable body); by default per `isIdempotentMethod`. A refused connection is resent whatever
 * the method: the request was not processed.
 */
export function decideRetry(
	outcome: AttemptOutcome,
	method: HttpMethod,
	retry: number,
	maxWaitSeconds: number,
	random: () => number,
	resendable = isIdempotentMethod(method),
): RetryDecision {
	let asked: number | undefined;
	if (outcome.kind === 'status' && outcome.status >= 500) {
		if (!resendable) return { action: 'fail', reason: 'notRetryable' };
		asked = outcome.info.retryAfterSeconds;
	} else if (outcome.kind === 'badBody') {
		if (!resendable) return { action: 'fail', reason: 'notRetryable' };
	} else if (outcome.kind === 'network') {
		const code = outcome.code ?? '';
		const neverSent = NEVER_SENT_CODES.includes(code);
		const transient = TRANSIENT_CODES.includes(code);
		if (!neverSent && !(transient && resendable)) {
			return { action: 'fail', reason: 'notRetryable' };
		}
	} else {
		return { action: 'fail', reason: 'notRetryable' };
	}
	if (retry >= MAX_RETRIES) return { action: 'fail', reason: 'exhausted' };
	if (asked !== undefined) {
		if (asked > maxWaitSeconds) return { action: 'fail', reason: 'waitCap', waitSeconds: asked };
		return { action: 'retry', waitSeconds: asked };
	}
	return { action: 'retry', waitSeconds: Math.min(backoffSeconds(retry, random), maxWaitSeconds) };
}
