/**
 * Replay protection for accepted deliveries, kept in the node's static data.
 *
 * A replay of a captured delivery is only dangerous while its signed timestamp is inside the
 * tolerance window: outside it, the signature check refuses it anyway. So every delivery
 * accepted inside the window is remembered, whatever the volume. Older ones are also kept (a
 * sender's genuine retry comes with a new timestamp and the same `webhook-id`) until the list
 * passes `limit`; then the oldest of them are forgotten first.
 */
export type SeenDelivery = {
	/** The `webhook-id`. */
	id: string;
	/** Its signed `webhook-timestamp`, in Unix seconds. */
	t: number;
};

export const SEEN_LIMIT = 1000;

/** Reads what static data holds, tolerating anything else (a foreign or corrupted value). */
export function readSeen(value: unknown): SeenDelivery[] {
	if (!Array.isArray(value)) return [];
	return value.filter(
		(entry): entry is SeenDelivery =>
			typeof entry === 'object' &&
			entry !== null &&
			typeof (entry as SeenDelivery).id === 'string' &&
			typeof (entry as SeenDelivery).t === 'number',
	);
}

export function hasSeen(seen: SeenDelivery[], id: string): boolean {
	return seen.some((entry) => entry.id === id);
}

export function rememberDelivery(
	seen: SeenDelivery[],
	delivery: SeenDelivery,
	nowSeconds: number,
	toleranceSeconds: number,
	limit = SEEN_LIMIT,
): SeenDelivery[] {
	const next = [...seen, delivery];
	let excess = next.length - limit;
	if (excess <= 0) return next;
	const replayableAfter = nowSeconds - toleranceSeconds;
	return next.filter((entry) => {
		if (excess > 0 && entry.t < replayableAfter) {
			excess--;
			return false;
		}
		return true;
	});
}
