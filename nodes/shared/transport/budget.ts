// Pacing arithmetic: a budget shared by every request that uses one key (credential type, base URL, key).
//
// Within one process the budget is exact: a request takes a slot from the remaining count the
// server last announced before it is sent, and requests in flight count against it. When no slot
// is left, requests wait for the window's reset in the order they came (a queue of tickets).
// At the reset only the head of the queue is sent (the probe); its answer tells the new window's
// budget, and then as many waiting requests as it allows go. Nothing is sent blindly at the reset.
//
// Several processes on one key, and the release of a window over time: sharing.ts.
//
// A server that reports no budget at all (only Retry-After on a 429, or a bare 429) is paced by
// what it accepts and refuses: a 429 closes the key's gate for everyone, until its Retry-After or
// the end the pack chooses, and the window's capacity and length are learned (learned.ts); the
// credential's rate, when set, spaces requests from the first one.
//
// Functions below change the Budget they are given and take the time as a parameter: the
// transport wires them to Date.now() and `sleep`; unit tests drive them with fake time.
import { gateWaitMs, learnedAnswer, learnedDecision, learnedSent, newLearned } from './learned';
import type { Learned } from './learned';
import type { RateLimitInfo } from './rateLimit';
import { RESET_MARGIN_SECONDS } from './rateLimit';
import { RESET_ROUNDING_MS, SHARED_CONSUMERS, markShared, releaseWaitMs, shareOf } from './sharing';

/** A waiting request looks at the budget again this often while another request's answer is awaited. */
export const ANSWER_POLL_MS = 20;
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
	/** The last answer reported no budget in any dialect: paced by what is learned (`learned`). */
	headerless: boolean;
	/** The gate a bare Retry-After closes, and the window learned from a header-less server. */
	learned: Learned;
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
		headerless: false,
		learned: newLearned(),
		inFlight: 0,
		probing: false,
		sentAtMs: [],
		consumers: SHARED_CONSUMERS,
		queue: [],
		nextTicket: 0,
		lastUsedMs: nowMs,
	};
}

export type PaceDecision =
	| { action: 'send'; probe: boolean }
	/**
	 * `reset`: no slot before the window resets; `answer`: an answer in flight may free one;
	 * `release`: the window's slots are released over time (see releaseWaitMs).
	 */
	| { action: 'wait'; ms: number; reason: 'reset' | 'answer' | 'release' };

/**
 * What the request `position` places behind the head of the queue (0: the head) does now.
 * Slots are handed out in queue order: the request at `position` goes only when the budget has
 * more than `position` free slots, so the ones before it are served first.
 */
export function paceDecision(budget: Budget, position: number, nowMs: number): PaceDecision {
	const margin = RESET_MARGIN_SECONDS * 1000;
	const gate = gateWaitMs(budget.learned, nowMs, margin);
	if (gate !== undefined) return { action: 'wait', ms: gate, reason: 'reset' };
	const { remaining, windowEndsAtMs } = budget;
	if (remaining !== undefined && windowEndsAtMs !== undefined && nowMs < windowEndsAtMs + margin) {
		const share = shareOf(budget, remaining, nowMs);
		if (position < share - budget.inFlight) {
			const release = releaseWaitMs(budget, position, nowMs);
			if (release === 0) return { action: 'send', probe: false };
			return { action: 'wait', ms: release, reason: 'release' };
		}
		// The window still has a slot for this place; our share of it comes as answers do.
		if (share < remaining && position < remaining - budget.inFlight) {
			return { action: 'wait', ms: ANSWER_POLL_MS, reason: 'answer' };
		}
		return { action: 'wait', ms: windowEndsAtMs + margin - nowMs, reason: 'reset' };
	}
	// No window known (never asked, or it has ended).
	if (budget.headerless) {
		const { inFlight, probing } = budget;
		return learnedDecision(
			budget.learned,
			position,
			inFlight,
			probing,
			nowMs,
			margin,
			ANSWER_POLL_MS,
		);
	}
	if (!budget.probing && position === 0) return { action: 'send', probe: true };
	return { action: 'wait', ms: ANSWER_POLL_MS, reason: 'answer' };
}

/** A request is sent now (after a `send` decision, or past Max Rate-Limit Wait): it counts in flight. */
export function reserve(budget: Budget, nowMs: number, probe: boolean): void {
	budget.inFlight++;
	if (probe) budget.probing = true;
	learnedSent(budget.learned, nowMs, probe);
	budget.sentAtMs.push(nowMs);
	if (budget.sentAtMs.length > MAX_SENT_LOG) budget.sentAtMs.shift();
	budget.lastUsedMs = nowMs;
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
		// No budget reported: the server is paced by what it accepts and refuses (learned.ts).
		if (answer.status < 500) {
			budget.headerless = true;
			budget.remaining = undefined;
			budget.windowEndsAtMs = undefined;
		}
		learnedAnswer(
			budget.learned,
			{
				status: answer.status,
				rateLimited,
				retryAfterSeconds: info.retryAfterSeconds,
				sentAtMs: answer.sentAtMs,
			},
			nowMs,
		);
		return;
	}
	budget.headerless = false;
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
