// The length of a window that nobody names: a server that answers a bare 429 (no Retry-After, no
// budget header) tells neither when its window ends nor how long it is. Its length is searched
// between two bounds that what the server accepts and refuses gives (learned.ts keeps them):
// - longer than `minMs`: a request sent that long after the window opened was refused;
// - at most `maxMs`: a probe sent that long after a full window opened was accepted (a new window).
// Until an upper bound is known, the window is taken to last what the accepted requests would take
// at the stated rate (the spec's 100 requests per minute, or the credential's rate), and at least
// twice the lower bound (a refused probe doubles it). Then each full window ends at the middle of
// the bounds, until they are close: a probe there either shortens the window or costs one 429.

/** The specification's default rate limit: 100 requests per minute. */
export const SPEC_RATE_PER_MINUTE = 100;
export const MINUTE_MS = 60_000;
/** Nothing accepted yet to scale the stated rate by: the first guess of a window's length. */
export const FIRST_GUESS_MS = 1000;
/** The bounds are close enough when this near (the larger of a fixed time and a share of the bound). */
export const BOUNDS_CLOSE_MS = 250;
export const BOUNDS_CLOSE_SHARE = 0.05;

export interface WindowBounds {
	minMs: number;
	maxMs?: number;
}

/** How long a full window is taken to last, from its opening. */
export function searchPointMs(
	bounds: WindowBounds,
	capacity: number | undefined,
	ratePerMinute = SPEC_RATE_PER_MINUTE,
): number {
	const { minMs, maxMs } = bounds;
	if (maxMs === undefined) {
		const stated = capacity === undefined ? FIRST_GUESS_MS : (capacity * MINUTE_MS) / ratePerMinute;
		return Math.max(stated, 2 * minMs);
	}
	if (maxMs - minMs <= Math.max(BOUNDS_CLOSE_MS, maxMs * BOUNDS_CLOSE_SHARE)) return maxMs;
	return Math.ceil((minMs + maxMs) / 2);
}

/** A request sent `afterMs` after its window opened was refused: the window is longer. */
export function refusedAfter(bounds: WindowBounds, afterMs: number): void {
	bounds.minMs = Math.max(bounds.minMs, afterMs);
	// Contradicts the upper bound (the server's window moved): search upwards again.
	if (bounds.maxMs !== undefined && bounds.maxMs <= bounds.minMs) bounds.maxMs = undefined;
}

/** A probe sent `afterMs` after a full window opened was accepted: the window is at most that. */
export function acceptedAfter(bounds: WindowBounds, afterMs: number): void {
	bounds.maxMs = Math.min(bounds.maxMs ?? Infinity, afterMs);
	if (bounds.minMs >= bounds.maxMs) bounds.minMs = 0;
}
