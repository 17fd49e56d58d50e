// Pacing a server that reports no budget, only Retry-After on a 429: its window is learned from
// what it accepts and refuses.
//
// - A 429 with Retry-After closes the key's gate for every request of the process until then.
// - A window opens with one probe (alone, nothing else is sent until its answer), at the start
//   and at each reopening; then requests are released gradually while the capacity is unknown
//   (in flight at most 1 + a quarter of those accepted in the window), so that the first
//   window's overflow stays small.
// - The first 429 of a window tells its capacity (the requests accepted in it) and its length
//   (from the probe to the end Retry-After names, an upper bound). From then on a window gets its
//   capacity and closes itself at its end: the next one opens with a probe again.
// - Adjusted up and down: a 429 sets the capacity to what was accepted; GROW_AFTER_WINDOWS full
//   windows in a row without one raise it by one.
//
// Pure arithmetic on a Learned record, with the time as a parameter (budget.ts wires it in).

/** Full windows without a 429 after which the learned capacity is tried one higher. */
export const GROW_AFTER_WINDOWS = 3;
/** While the capacity is unknown, one more request in flight per this many accepted. */
export const SLOW_START_STEP = 4;

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
}

export function newLearned(): Learned {
	return { windowFromGate: false, afterGate: false, accepted: 0, fullWindows: 0 };
}

/** The gate is closed at `nowMs` (plus `marginMs`): the time left, else undefined. */
export function gateWaitMs(l: Learned, nowMs: number, marginMs: number): number | undefined {
	if (l.closedUntilMs === undefined || nowMs >= l.closedUntilMs + marginMs) return undefined;
	return l.closedUntilMs + marginMs - nowMs;
}

function endWindow(l: Learned, afterGate: boolean): void {
	l.previousOpenedAtMs = l.openedAtMs;
	l.openedAtMs = undefined;
	l.accepted = 0;
	l.afterGate = afterGate;
}

/** The learned window is over (its length passed without a 429): the next opens with a probe. */
export function rollOver(l: Learned, nowMs: number, marginMs: number): void {
	if (l.openedAtMs === undefined || l.windowMs === undefined) return;
	if (nowMs < l.openedAtMs + l.windowMs + marginMs) return;
	if (l.capacity !== undefined && l.accepted >= l.capacity) {
		l.fullWindows++;
		if (l.fullWindows >= GROW_AFTER_WINDOWS) {
			l.capacity++;
			l.fullWindows = 0;
		}
	}
	endWindow(l, l.windowFromGate);
}

export type LearnedDecision =
	| { action: 'send'; probe: boolean }
	| { action: 'wait'; ms: number; reason: 'reset' | 'answer' };

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
	if (l.openedAtMs === undefined) {
		return !probing && position === 0 ? { action: 'send', probe: true } : awaitAnswer;
	}
	if (probing) return awaitAnswer;
	if (l.capacity === undefined) {
		const cap = 1 + Math.floor(l.accepted / SLOW_START_STEP);
		return position < cap - inFlight ? { action: 'send', probe: false } : awaitAnswer;
	}
	if (position < l.capacity - l.accepted - inFlight) return { action: 'send', probe: false };
	if (l.windowMs === undefined) return awaitAnswer;
	return { action: 'wait', ms: l.openedAtMs + l.windowMs + marginMs - nowMs, reason: 'reset' };
}

/** A request is sent: a probe opens the window. */
export function learnedSent(l: Learned, nowMs: number, probe: boolean): void {
	if (probe && l.openedAtMs === undefined) l.openedAtMs = nowMs;
}

/** Closes the gate until `untilMs` (a Retry-After), for every request of the key. */
export function closeGate(l: Learned, untilMs: number): void {
	l.closedUntilMs = Math.max(l.closedUntilMs ?? 0, untilMs);
}

/**
 * Takes in the answer to a request sent at `sentAtMs`, from a server that reported no budget:
 * accepted (any answer below 500 but a 429) counts in the window; a 429 with Retry-After closes
 * the gate and, the first in its window, tells the window's capacity and length.
 */
export function learnedAnswer(
	l: Learned,
	answer: { status: number; rateLimited: boolean; retryAfterSeconds?: number; sentAtMs: number },
	nowMs: number,
): void {
	const inWindow = l.openedAtMs !== undefined && answer.sentAtMs >= l.openedAtMs;
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
		endWindow(l, true);
		return;
	}
	if (inWindow && answer.status < 500 && answer.status !== 429) {
		l.accepted++;
		if (l.capacity !== undefined && l.accepted > l.capacity) l.capacity = l.accepted;
	}
}
