// Pacing a server that reports no budget (only Retry-After on a 429, or a bare 429 with nothing at
// all): its window is learned from what it accepts and refuses.
//
// - A 429 closes the key's gate for every request of the process: until its Retry-After, or, for a
//   bare 429, until the window is taken to end (its length is searched, windowSearch.ts).
// - A window opens with one probe (alone, nothing else is sent until its answer), at the start
//   and at each reopening; then requests are released gradually while the capacity is unknown
//   (in flight at most 1 + a quarter of those accepted in the window), so that the first
//   window's overflow stays small.
// - The first 429 of a window tells its capacity (the requests accepted in it) and its length
//   (from the probe to the end Retry-After names, an upper bound). From then on a window gets its
//   capacity and closes itself at its end: the next one opens with a probe again.
// - Adjusted up and down: a 429 sets the capacity to what was accepted; GROW_AFTER_WINDOWS full
//   windows in a row without one raise it by one.
// - The credential's rate (requests per minute), when set: requests are spaced evenly at that rate
//   from the first one (no slow start, so that the first window does not overflow either), and it
//   is where the search of a bare window's length starts instead of the spec's 100 per minute.
//
// Pure arithmetic on a Learned record, with the time as a parameter (budget.ts wires it in).
import { MINUTE_MS, acceptedAfter, refusedAfter, searchPointMs } from './windowSearch';
import type { WindowBounds } from './windowSearch';
import { SHARED_CONSUMERS, SHARED_WINDOWS, releaseAtMs } from './sharing';

/** Full windows without a 429 after which the learned capacity is tried one higher. */
export const GROW_AFTER_WINDOWS = 3;
/** While the capacity is unknown, one more request in flight per this many accepted. */
export const SLOW_START_STEP = 4;
/** Requests paced at the credential's rate are spaced this much wider (network jitter). */
export const RATE_SPACING_MARGIN = 0.01;

export interface Learned {
	/** The gate is closed until then (the latest Retry-After of a 429), for every request. */
	closedUntilMs?: number;
	/** Requests accepted per window, once a 429 told it. */
	capacity?: number;
	/** The window's length, an upper bound, once a 429 told it. */
	windowMs?: number;
	/** Whether windowMs was measured on a window our probe opened after a closed gate (trusted). */
	windowFromGate: boolean;
	/** When the current window's probe was sent; undefined: no window is open. */
	openedAtMs?: number;
	/** The previous window's opening. */
	previousOpenedAtMs?: number;
	/** The current window opened after the gate closed (or after a learned window ended). */
	afterGate: boolean;
	/** Requests of the current window that were accepted. */
	accepted: number;
	/** Full windows in a row without a 429. */
	fullWindows: number;
	/** The window's length is searched between these bounds (a bare 429 was seen). */
	bounds?: WindowBounds;
	/** The previous window ended full (capacity used, or refused): a probe after it bounds the length. */
	previousFull: boolean;
	/** The credential's rate, in requests per minute, when set. */
	ratePerMinute?: number;
	/** When the last request was sent. */
	lastSentMs?: number;
	/** Another consumer was seen (a bare 429 no window of ours explains): shared until then. */
	sharedUntilMs?: number;
}

export function newLearned(): Learned {
	return {
		windowFromGate: false,
		afterGate: false,
		accepted: 0,
		fullWindows: 0,
		previousFull: false,
	};
}

/** The time between two requests at the credential's rate; undefined: no rate set. */
export function rateSpacingMs(l: Learned): number | undefined {
	if (l.ratePerMinute === undefined) return undefined;
	return (MINUTE_MS / l.ratePerMinute) * (1 + RATE_SPACING_MARGIN);
}

/** Another consumer was seen lately: each window is taken in part only (windowCapacity). */
export function learnedShared(l: Learned, nowMs: number): boolean {
	return l.sharedUntilMs !== undefined && nowMs < l.sharedUntilMs;
}

/** What this process takes of a window: the capacity, or its share of it while shared. */
function windowCapacity(l: Learned, nowMs: number): number | undefined {
	if (l.capacity === undefined || !learnedShared(l, nowMs)) return l.capacity;
	return Math.max(1, Math.floor(l.capacity / SHARED_CONSUMERS));
}

/**
 * How long the current window lasts from its opening. A bare server's window that is not `full`
 * ends at the upper bound (a probe sooner would not tell the length); at the credential's rate with
 * nothing learned, a window is a minute.
 */
function windowLengthMs(l: Learned, full: boolean): number | undefined {
	if (l.bounds?.maxMs !== undefined && !full) {
		return l.bounds.maxMs;
	}
	return l.windowMs ?? (l.ratePerMinute === undefined ? undefined : MINUTE_MS);
}

/** The gate is closed at `nowMs` (plus `marginMs`): the time left, else undefined. */
export function gateWaitMs(l: Learned, nowMs: number, marginMs: number): number | undefined {
	if (l.closedUntilMs === undefined || nowMs >= l.closedUntilMs + marginMs) return undefined;
	return l.closedUntilMs + marginMs - nowMs;
}

function endWindow(l: Learned, afterGate: boolean, full: boolean): void {
	l.previousFull = full;
	l.previousOpenedAtMs = l.openedAtMs;
	l.openedAtMs = undefined;
	l.accepted = 0;
	l.afterGate = afterGate;
}

/** The learned window is over (its length passed without a 429): the next opens with a probe. */
export function rollOver(l: Learned, nowMs: number, marginMs: number): void {
	const capacity = windowCapacity(l, nowMs);
	const full = capacity !== undefined && l.accepted >= capacity;
	const lengthMs = windowLengthMs(l, full);
	if (l.openedAtMs === undefined || lengthMs === undefined) return;
	if (nowMs < l.openedAtMs + lengthMs + marginMs) return;
	// A window shared with another consumer tells nothing of what the server would take.
	if (full && !learnedShared(l, nowMs)) {
		l.fullWindows++;
		if (l.fullWindows >= GROW_AFTER_WINDOWS) {
			l.capacity!++;
			l.fullWindows = 0;
		}
	}
	endWindow(l, l.windowFromGate || l.bounds !== undefined, full);
}

export type LearnedDecision =
	| { action: 'send'; probe: boolean }
	| { action: 'wait'; ms: number; reason: 'reset' | 'answer' | 'release' };

/**
 * What the request at `position` in the queue does, the gate being open. `pollMs`: how soon to
 * look again while an answer is awaited.
 */
export function learnedDecision(
	l: Learned,
	position: number,
	inFlight: number,
	probing: boolean,
	nowMs: number,
	marginMs: number,
	pollMs: number,
): LearnedDecision {
	rollOver(l, nowMs, marginMs);
	const awaitAnswer = { action: 'wait', ms: pollMs, reason: 'answer' } as const;
	const place = { position, inFlight, probing };
	const decision = openDecision(l, place, nowMs, marginMs, awaitAnswer);
	// At the credential's rate: the request at `position` goes `position + 1` spacings after the last.
	const spacingMs = rateSpacingMs(l);
	if (decision.action === 'wait' || spacingMs === undefined || l.lastSentMs === undefined) {
		return decision;
	}
	const releaseMs = Math.ceil(l.lastSentMs + (position + 1) * spacingMs - nowMs);
	return releaseMs > 0 ? { action: 'wait', ms: releaseMs, reason: 'release' } : decision;
}

/** learnedDecision before the credential's rate spaces it. */
function openDecision(
	l: Learned,
	place: { position: number; inFlight: number; probing: boolean },
	nowMs: number,
	marginMs: number,
	awaitAnswer: LearnedDecision,
): LearnedDecision {
	const { position, inFlight, probing } = place;
	if (l.openedAtMs === undefined) {
		return !probing && position === 0 ? { action: 'send', probe: true } : awaitAnswer;
	}
	if (probing) return awaitAnswer;
	if (l.capacity === undefined) {
		// At the credential's rate, the spacing is the release; else a slow start.
		if (l.ratePerMinute !== undefined) return { action: 'send', probe: false };
		const cap = 1 + Math.floor(l.accepted / SLOW_START_STEP);
		return position < cap - inFlight ? { action: 'send', probe: false } : awaitAnswer;
	}
	const capacity = windowCapacity(l, nowMs)!;
	if (position < capacity - l.accepted - inFlight) {
		// A bare server shows no sign of other consumers: its windows are always released over time,
		// within what is known of their length (the lower bound), so that none spills into the next.
		const lengthMs = l.bounds?.minMs;
		if (lengthMs === undefined) return { action: 'send', probe: false };
		const nth = l.accepted + inFlight + position + 1;
		const atMs = releaseAtMs(l.openedAtMs, lengthMs, capacity, nth);
		if (atMs <= nowMs) return { action: 'send', probe: false };
		return { action: 'wait', ms: Math.ceil(atMs - nowMs), reason: 'release' };
	}
	// No slot for this place: the requests before it fill the window.
	const lengthMs = windowLengthMs(l, true);
	const resetMs = lengthMs === undefined ? 0 : l.openedAtMs + lengthMs + marginMs - nowMs;
	// Past the window's end with requests still in flight: their answers end it (rollOver).
	return resetMs > 0 ? { action: 'wait', ms: resetMs, reason: 'reset' } : awaitAnswer;
}

/** A request is sent: a probe opens the window. */
export function learnedSent(l: Learned, nowMs: number, probe: boolean): void {
	if (probe && l.openedAtMs === undefined) l.openedAtMs = nowMs;
	l.lastSentMs = nowMs;
}

/** Closes the gate until `untilMs` (a Retry-After), for every request of the key. */
export function closeGate(l: Learned, untilMs: number): void {
	l.closedUntilMs = Math.max(l.closedUntilMs ?? 0, untilMs);
}

/**
 * A bare 429 (no wait named) for a request sent at `sentAtMs`: the gate closes until the window
 * is taken to end, from its opening. The first in its window tells the capacity (what was accepted)
 * and a lower bound of the length; a refused probe, that the previous window is still running.
 */
function bareRefused(l: Learned, sentAtMs: number, nowMs: number): void {
	// A 429 of a window already closed tells nothing new.
	if (l.openedAtMs === undefined || sentAtMs < l.openedAtMs) return;
	const bounds = (l.bounds ??= { minMs: 0 });
	let openedAtMs = l.openedAtMs;
	let others = false;
	if (l.accepted > 0) {
		l.capacity = l.accepted;
		refusedAfter(bounds, sentAtMs - openedAtMs);
	} else if (l.previousOpenedAtMs !== undefined) {
		openedAtMs = l.previousOpenedAtMs;
		// Past every length known to hold (no upper bound yet): either our window is longer than
		// thought, or another consumer opened one since. Both are assumed: the length doubles, and
		// windows are shared for a while, so that the other finds room in ours and we in its.
		others = bounds.maxMs === undefined;
		refusedAfter(bounds, sentAtMs - openedAtMs);
	} else {
		// Refused from the first request: a window we did not see open (another consumer's).
		openedAtMs = nowMs;
		others = true;
	}
	l.windowMs = searchPointMs(bounds, l.capacity, l.ratePerMinute);
	if (others) l.sharedUntilMs = nowMs + SHARED_WINDOWS * l.windowMs;
	l.windowFromGate = false;
	closeGate(l, openedAtMs + l.windowMs);
	l.fullWindows = 0;
	endWindow(l, true, true);
	l.previousOpenedAtMs = openedAtMs;
}

/**
 * Takes in the answer to a request sent at `sentAtMs`, from a server that reported no budget:
 * accepted (any answer below 500 but a 429) counts in the window; a 429 closes the gate and, the
 * first in its window, tells the window's capacity and length (with Retry-After), or bounds the
 * length (a bare 429, bareRefused).
 */
export function learnedAnswer(
	l: Learned,
	answer: { status: number; rateLimited: boolean; retryAfterSeconds?: number; sentAtMs: number },
	nowMs: number,
): void {
	const inWindow = l.openedAtMs !== undefined && answer.sentAtMs >= l.openedAtMs;
	if (answer.rateLimited && answer.retryAfterSeconds === undefined) {
		bareRefused(l, answer.sentAtMs, nowMs);
		return;
	}
	if (answer.rateLimited && answer.retryAfterSeconds !== undefined) {
		const endMs = nowMs + answer.retryAfterSeconds * 1000;
		closeGate(l, endMs);
		if (!inWindow || l.openedAtMs === undefined) return;
		if (l.accepted > 0) {
			l.capacity = l.accepted;
			const estimate = endMs - l.openedAtMs;
			if (l.afterGate) {
				l.windowMs = l.windowFromGate ? Math.min(l.windowMs ?? estimate, estimate) : estimate;
				l.windowFromGate = true;
			} else if (!l.windowFromGate) {
				l.windowMs = Math.max(l.windowMs ?? 0, estimate);
			}
		} else if (l.previousOpenedAtMs !== undefined && l.windowMs !== undefined) {
			// Refused before anything was accepted: the previous window was still running.
			l.windowMs = Math.max(l.windowMs, endMs - l.previousOpenedAtMs);
			l.windowFromGate = false;
		}
		l.fullWindows = 0;
		endWindow(l, true, true);
		return;
	}
	if (inWindow && answer.status < 500 && answer.status !== 429) {
		// A probe accepted after a full window: that window was at most this long.
		const { bounds, previousOpenedAtMs } = l;
		const probe = l.accepted === 0 && answer.sentAtMs === l.openedAtMs;
		if (probe && bounds && l.previousFull && l.afterGate && previousOpenedAtMs !== undefined) {
			acceptedAfter(bounds, answer.sentAtMs - previousOpenedAtMs);
			l.windowMs = searchPointMs(bounds, l.capacity, l.ratePerMinute);
		}
		l.accepted++;
		if (l.capacity !== undefined && l.accepted > l.capacity) l.capacity = l.accepted;
	}
}
