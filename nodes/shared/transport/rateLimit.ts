// Rate-limit, retry and pacing arithmetic. Pure functions (time and randomness are parameters) so
// that unit tests with fake time cover them; the transport only wires them to real time and `sleep`.

/** Retries after the first attempt, whatever the cause. */
export const MAX_RETRIES = 5;
/** Exponential backoff: the n-th retry waits a uniform random time in [0, min(cap, base * 2^n)]. */
export const BACKOFF_BASE_SECONDS = 0.5;
export const BACKOFF_CAP_SECONDS = 30;
/** Added to a wait for a rate-limit window so that the request lands after the reset, not on it. */
export const RESET_MARGIN_SECONDS = 0.02;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
type Headers = Record<string, unknown>;

function header(headers: Headers | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() === wanted) {
			const first = Array.isArray(value) ? value[0] : value;
			return first === undefined || first === null ? undefined : String(first).trim();
		}
	}
	return undefined;
}

function nonNegativeNumber(value: string | undefined): number | undefined {
	if (value === undefined || value === '' || !/^\d+(\.\d+)?$/.test(value)) return undefined;
	return Number(value);
}

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
	/** Seconds until the current window resets (`RateLimit-Reset`). */
	resetSeconds?: number;
	/** Seconds to wait before retrying (`Retry-After`), on a 429 or 503. */
	retryAfterSeconds?: number;
}

export function readRateLimitHeaders(headers: Headers | undefined, nowMs: number): RateLimitInfo {
	return {
		limit: nonNegativeNumber(header(headers, 'ratelimit-limit')),
		remaining: nonNegativeNumber(header(headers, 'ratelimit-remaining')),
		resetSeconds: nonNegativeNumber(header(headers, 'ratelimit-reset')),
		retryAfterSeconds: parseRetryAfter(header(headers, 'retry-after'), nowMs),
	};
}

/** Full-jitter exponential backoff for the retry number `retry` (0 for the first retry). */
export function backoffSeconds(retry: number, random: () => number): number {
	const ceiling = Math.min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** retry);
	return random() * ceiling;
}

/** The wait before retrying a 429: Retry-After, else RateLimit-Reset, else backoff. */
export function rateLimitWaitSeconds(
	info: RateLimitInfo,
	retry: number,
	random: () => number,
): { seconds: number; source: 'retry-after' | 'reset' | 'backoff' } {
	if (info.retryAfterSeconds !== undefined) {
		return { seconds: info.retryAfterSeconds, source: 'retry-after' };
	}
	if (info.resetSeconds !== undefined) {
		return { seconds: info.resetSeconds + RESET_MARGIN_SECONDS, source: 'reset' };
	}
	return { seconds: backoffSeconds(retry, random), source: 'backoff' };
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
			reason: 'notRetryable' | 'exhausted' | 'waitCap' | 'dailyQuota';
			/** The wait the server asked for, when the reason is a wait (waitCap, dailyQuota). */
			waitSeconds?: number;
	  };

/**
 * Decides whether a failed attempt is retried and after how long.
 * `retry` is the number of retries already made for this request. A wait the server asks for
 * (Retry-After, RateLimit-Reset) longer than `maxWaitSeconds` fails; our own backoff is capped.
 * `resendable`: whether the request may be resent after its answer was lost (5xx, reset, timeout,
 * unreadable body); by default per `isIdempotentMethod`. A 429 and a refused connection are
 * resent whatever the method: the request was not processed.
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
	if (outcome.kind === 'status' && outcome.status === 429) {
		if (outcome.apiCode === 'daily_quota_exceeded') {
			return { action: 'fail', reason: 'dailyQuota', waitSeconds: outcome.info.retryAfterSeconds };
		}
		const wait = rateLimitWaitSeconds(outcome.info, retry, random);
		if (wait.source !== 'backoff') asked = wait.seconds;
	} else if (outcome.kind === 'status' && outcome.status >= 500) {
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

// ---------------------------------------------------------------------------------------------
// Pacing: a budget shared by every request that uses one key (credential type, base URL, key).
//
// Within one process the budget is exact: a request takes a slot from the remaining count the
// server last announced before it is sent, and requests in flight count against it. When no slot
// is left, requests wait for the window's reset in the order they came (a queue of tickets).
// At the reset only the head of the queue is sent (the probe); its answer tells the new window's
// budget, and then as many waiting requests as it allows go. Nothing is sent blindly at the reset.
//
// Several processes cannot share memory, so they coordinate only through the headers: usage we
// did not make (the server counts more used than we sent in the window) or a 429 our count did
// not foresee proves other consumers. Then the budget is "shared" for a few windows: a process
// keeps in flight at most its share of what is left (floor(remaining / consumers)) and takes more
// as its answers bring fresh counts, so that processes each taking their share of the same count
// cannot overrun it. A 429 while shared assumes one more consumer. In a budget's first window,
// before anything is known, the share is rounded up instead: a lone process still fills it.
//
// Functions below change the Budget they are given and take the time as a parameter: the
// transport wires them to Date.now() and `sleep`; unit tests drive them with fake time.

/** A waiting request looks at the budget again this often while another request's answer is awaited. */
export const ANSWER_POLL_MS = 20;
/** Consumers assumed once others are seen, and the most ever assumed. */
export const SHARED_CONSUMERS = 2;
export const MAX_CONSUMERS = 8;
/** How many windows a budget stays shared after the last sign of another consumer. */
export const SHARED_WINDOWS = 3;
/** `RateLimit-Reset` is rounded up to whole seconds: a window can end up to this much before its bound. */
const RESET_ROUNDING_MS = 1000;
/** An answer whose reset lands this far past the known window's end belongs to a new window. */
const NEW_WINDOW_SLACK_MS = 1500;
/** A budget with nothing waiting or in flight is forgotten after this long. */
export const BUDGET_IDLE_MS = 15 * 60_000;
/** At most this many budgets are kept; the least recently used idle ones go first. */
export const MAX_BUDGETS = 500;
/** Bounds the log of our own send times (a window rarely holds more). */
const MAX_SENT_LOG = 10_000;

export interface Budget {
	/** `RateLimit-Limit`, once the server said it. */
	limit?: number;
	/** `RateLimit-Remaining` of the current window: the lowest seen in it. Undefined: not known. */
	remaining?: number;
	/** Upper bound of the current window's end: the tightest seen in it. */
	windowEndsAtMs?: number;
	/** From when our own requests may count in the current window (-Infinity: the first window). */
	windowStartMs: number;
	/** The longest reset seen: about the window's length. */
	windowMs: number;
	/** The last answer carried no RateLimit headers: nothing to pace by (requests go at once). */
	unpaced: boolean;
	/** Requests sent and not answered yet. */
	inFlight: number;
	/** A request sent to learn a new window's budget is not answered yet. */
	probing: boolean;
	/** When each of our requests that may count in the current window was sent. */
	sentAtMs: number[];
	/** Shared with other consumers (seen) until then; undefined: the first window, others assumed. */
	sharedUntilMs?: number;
	/** Consumers assumed while shared. */
	consumers: number;
	/** Tickets of the waiting requests, first come first served. */
	queue: number[];
	nextTicket: number;
	lastUsedMs: number;
}

export function newBudget(nowMs: number): Budget {
	return {
		windowStartMs: -Infinity,
		windowMs: 0,
		unpaced: false,
		inFlight: 0,
		probing: false,
		sentAtMs: [],
		consumers: SHARED_CONSUMERS,
		queue: [],
		nextTicket: 0,
		lastUsedMs: nowMs,
	};
}

/** Other consumers were seen lately (not merely assumed, as in the first window). */
export function isShared(budget: Budget, nowMs: number): boolean {
	return budget.sharedUntilMs !== undefined && nowMs < budget.sharedUntilMs;
}

/**
 * The slots of `remaining` this process may have in flight. Shared (others seen): our share,
 * rounded down, so that processes each taking theirs from the same count cannot overrun it.
 * First window (nothing known yet about others): our share rounded up, so that a lone process
 * still uses the whole window. Otherwise all of it.
 */
export function shareOf(budget: Budget, remaining: number, nowMs: number): number {
	if (isShared(budget, nowMs)) return Math.floor(remaining / budget.consumers);
	if (budget.sharedUntilMs === undefined) return Math.ceil(remaining / budget.consumers);
	return remaining;
}

export type PaceDecision =
	| { action: 'send'; probe: boolean }
	/** `reset`: no slot before the window resets; `answer`: an answer in flight may free one. */
	| { action: 'wait'; ms: number; reason: 'reset' | 'answer' };

/**
 * What the request `position` places behind the head of the queue (0: the head) does now.
 * Slots are handed out in queue order: the request at `position` goes only when the budget has
 * more than `position` free slots, so the ones before it are served first.
 */
export function paceDecision(budget: Budget, position: number, nowMs: number): PaceDecision {
	const margin = RESET_MARGIN_SECONDS * 1000;
	const { remaining, windowEndsAtMs } = budget;
	if (remaining !== undefined && windowEndsAtMs !== undefined && nowMs < windowEndsAtMs + margin) {
		const share = shareOf(budget, remaining, nowMs);
		if (position < share - budget.inFlight) return { action: 'send', probe: false };
		// The window still has a slot for this place; our share of it comes as answers do.
		if (share < remaining && position < remaining - budget.inFlight) {
			return { action: 'wait', ms: ANSWER_POLL_MS, reason: 'answer' };
		}
		return { action: 'wait', ms: windowEndsAtMs + margin - nowMs, reason: 'reset' };
	}
	// No window known (never asked, or it has ended).
	if (budget.unpaced) return { action: 'send', probe: false };
	if (!budget.probing && position === 0) return { action: 'send', probe: true };
	return { action: 'wait', ms: ANSWER_POLL_MS, reason: 'answer' };
}

/** A request is sent now (after a `send` decision, or past Max Rate-Limit Wait): it counts in flight. */
export function reserve(budget: Budget, nowMs: number, probe: boolean): void {
	budget.inFlight++;
	if (probe) budget.probing = true;
	budget.sentAtMs.push(nowMs);
	if (budget.sentAtMs.length > MAX_SENT_LOG) budget.sentAtMs.shift();
	budget.lastUsedMs = nowMs;
}

function markShared(budget: Budget, nowMs: number, refused: boolean): void {
	if (!isShared(budget, nowMs)) budget.consumers = SHARED_CONSUMERS;
	else if (refused) {
		budget.consumers = Math.min(MAX_CONSUMERS, budget.consumers + 1);
	}
	const windowMs = Math.max(budget.windowMs, RESET_ROUNDING_MS);
	const until = (budget.windowEndsAtMs ?? nowMs) + SHARED_WINDOWS * windowMs;
	budget.sharedUntilMs = Math.max(budget.sharedUntilMs ?? 0, until);
}

export interface ObservedAnswer {
	status: number;
	apiCode?: string;
	info: RateLimitInfo;
	/** When the request was sent. */
	sentAtMs: number;
	probe: boolean;
	/** False when it was sent past Max Rate-Limit Wait, knowing the window was used up. */
	paced: boolean;
}

/**
 * Takes in an answer's headers: the request leaves the in-flight count and the window is updated.
 * `RateLimit-Reset` is whole seconds rounded up, so each answer gives an upper bound of the
 * window's end (`now + reset`); within one window the smallest bound and the smallest remaining
 * are kept (answers may arrive out of order). An answer belongs to a new window when its request
 * was sent after the known end, or when its bound lies clearly beyond it.
 */
export function observeAnswer(budget: Budget, answer: ObservedAnswer, nowMs: number): void {
	budget.inFlight = Math.max(0, budget.inFlight - 1);
	if (answer.probe) budget.probing = false;
	budget.lastUsedMs = nowMs;
	const { info } = answer;
	const rateLimited = answer.status === 429 && answer.apiCode !== 'daily_quota_exceeded';
	if (info.remaining === undefined || info.resetSeconds === undefined) {
		if (answer.status === 429 && info.retryAfterSeconds !== undefined) {
			budget.remaining = 0;
			budget.windowEndsAtMs = nowMs + info.retryAfterSeconds * 1000;
		} else if (answer.status < 500) {
			budget.unpaced = true;
		}
		return;
	}
	budget.unpaced = false;
	if (info.limit !== undefined) budget.limit = info.limit;
	const bound = nowMs + info.resetSeconds * 1000;
	const previousEnd = budget.windowEndsAtMs;
	const newWindow =
		previousEnd === undefined ||
		budget.remaining === undefined ||
		answer.sentAtMs >= previousEnd ||
		bound >= previousEnd + NEW_WINDOW_SLACK_MS;
	if (newWindow) {
		if (previousEnd !== undefined) {
			budget.windowStartMs = previousEnd - RESET_ROUNDING_MS;
			budget.sentAtMs = budget.sentAtMs.filter((at) => at >= budget.windowStartMs);
		}
		budget.remaining = info.remaining;
		budget.windowEndsAtMs = bound;
		budget.windowMs = Math.max(budget.windowMs, info.resetSeconds * 1000);
		// The first window is over: from now on only what is seen makes the budget shared.
		if (previousEnd !== undefined && budget.sharedUntilMs === undefined) budget.sharedUntilMs = 0;
	} else {
		budget.remaining = Math.min(budget.remaining ?? info.remaining, info.remaining);
		budget.windowEndsAtMs = Math.min(previousEnd, bound);
	}
	if (rateLimited && info.retryAfterSeconds !== undefined) {
		// Refused: nothing is left until the server's Retry-After. The server's word on when to come
		// back wins over the window's bound, sooner or later: the next answer tells the budget again.
		budget.remaining = 0;
		budget.windowEndsAtMs = nowMs + info.retryAfterSeconds * 1000;
	}
	// Others' traces: a 429 our count did not foresee, or more used than we sent in this window.
	const usedByAll = budget.limit === undefined ? undefined : budget.limit - info.remaining;
	if (rateLimited) {
		if (answer.paced) markShared(budget, nowMs, true);
	} else if (usedByAll !== undefined && usedByAll > budget.sentAtMs.length) {
		markShared(budget, nowMs, false);
	}
}

/** The request got no answer (network error): it leaves the in-flight count. */
export function observeNoAnswer(budget: Budget, probe: boolean, nowMs: number): void {
	budget.inFlight = Math.max(0, budget.inFlight - 1);
	if (probe) budget.probing = false;
	budget.lastUsedMs = nowMs;
}

/**
 * Forgets budgets nobody uses: nothing waiting or in flight and unused for BUDGET_IDLE_MS, and
 * beyond MAX_BUDGETS the least recently used idle ones. A forgotten budget is learned again.
 */
export function pruneBudgets(budgets: Map<string, Budget>, nowMs: number): void {
	const idle = (b: Budget) => b.queue.length === 0 && b.inFlight === 0;
	for (const [key, budget] of budgets) {
		if (idle(budget) && nowMs - budget.lastUsedMs > BUDGET_IDLE_MS) budgets.delete(key);
	}
	if (budgets.size <= MAX_BUDGETS) return;
	const oldest = [...budgets]
		.filter(([, budget]) => idle(budget))
		.sort(([, a], [, b]) => a.lastUsedMs - b.lastUsedMs);
	for (const [key] of oldest.slice(0, budgets.size - MAX_BUDGETS)) budgets.delete(key);
}
