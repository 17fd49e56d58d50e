// Several processes on one key (budget.ts does the arithmetic of one).
//
// Several processes cannot share memory, so they coordinate only through the headers: usage we
// did not make (the server counts more used than we sent in the window) or a 429 our count did
// not foresee proves other consumers. Then the budget is "shared" for a few windows: a process
// keeps in flight at most its share of what is left (floor(remaining / consumers)) and takes more
// as its answers bring fresh counts, so that processes each taking their share of the same count
// cannot overrun it. A 429 while shared assumes one more consumer. In a budget's first window,
// before anything is known, the share is rounded up instead: a lone process still fills it.
//
// A process alone does not know of a process that comes late in a window (a worker slower to start,
// or one whose estimate of the reset, from a 429's rounded Retry-After, is later than ours): its
// refused requests leave no trace in our headers. So, while another consumer is likely (its first
// window, or signs of others in recent windows), no process takes a whole window at once: half
// of the window's limit goes at once, the rest is released evenly over the first half of the window
// (at most its first 10 s). A late process still finds room, its answers tell it the window as
// precisely as ours, and a backlog still uses every window in full.
//
// A process that has seen no sign of another consumer for SHARED_WINDOWS windows (past its first
// one) takes each window as it comes: nothing is held back, so a lone process stays at the ceiling.
// A late worker's first request in a window still leaves its trace (more used than we sent), and
// from then on the release holds again for both.
import type { Budget } from './budget';

/** Consumers assumed once others are seen, and the most ever assumed. */
export const SHARED_CONSUMERS = 2;
export const MAX_CONSUMERS = 8;
/** How many windows a budget stays shared after the last sign of another consumer. */
export const SHARED_WINDOWS = 3;
/** `RateLimit-Reset` is rounded up to whole seconds: a window can end up to this much before its bound. */
export const RESET_ROUNDING_MS = 1000;
/** The part of a window's limit one process may take at once; the rest is released over time. */
export const BURST_SHARE = 0.5;
/** The part of the window (from its start) over which the rest of the limit is released... */
export const RELEASE_SHARE_OF_WINDOW = 0.5;
/** ...and at most this long: a late process is late by a second or two, not by half an hour. */
export const MAX_RELEASE_MS = 10_000;

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

/** Another consumer may be there: seen in recent windows, or not known yet (the first window). */
export function othersLikely(budget: Budget, nowMs: number): boolean {
	return budget.sharedUntilMs === undefined || isShared(budget, nowMs);
}

/**
 * How long the request `position` places behind the head waits for its slot to be released
 * (BURST_SHARE at once, the rest evenly over RELEASE_SHARE_OF_WINDOW of the window, at most
 * MAX_RELEASE_MS), while another consumer is likely; 0: released.
 */
export function releaseWaitMs(budget: Budget, position: number, nowMs: number): number {
	const { limit, windowEndsAtMs, windowMs } = budget;
	if (limit === undefined || windowEndsAtMs === undefined || windowMs <= 0) return 0;
	if (!othersLikely(budget, nowMs)) return 0;
	const startMs = windowEndsAtMs - windowMs;
	let sent = 0;
	for (const at of budget.sentAtMs) if (at >= startMs) sent++;
	return Math.max(0, Math.ceil(releaseAtMs(startMs, windowMs, limit, sent + position + 1) - nowMs));
}

/**
 * When the nth request of a window of `limit` that started at `startMs` is released: the first
 * BURST_SHARE of the limit at once (at least one), the rest evenly over RELEASE_SHARE_OF_WINDOW of
 * the window, at most MAX_RELEASE_MS.
 */
export function releaseAtMs(startMs: number, windowMs: number, limit: number, nth: number): number {
	const burst = Math.max(1, Math.ceil(limit * BURST_SHARE));
	if (nth <= burst) return startMs;
	const releaseMs = Math.min(windowMs * RELEASE_SHARE_OF_WINDOW, MAX_RELEASE_MS);
	return startMs + Math.min(1, (nth - burst) / Math.max(1, limit - burst)) * releaseMs;
}

/** A sign of another consumer: shared for SHARED_WINDOWS windows; `refused`: one more assumed. */
export function markShared(budget: Budget, nowMs: number, refused: boolean): void {
	if (!isShared(budget, nowMs)) budget.consumers = SHARED_CONSUMERS;
	else if (refused) {
		budget.consumers = Math.min(MAX_CONSUMERS, budget.consumers + 1);
	}
	const windowMs = Math.max(budget.windowMs, RESET_ROUNDING_MS);
	const until = (budget.windowEndsAtMs ?? nowMs) + SHARED_WINDOWS * windowMs;
	budget.sharedUntilMs = Math.max(budget.sharedUntilMs ?? 0, until);
}
