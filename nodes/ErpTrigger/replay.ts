// Replay protection: a replayed delivery never starts a run. The check and the record are one
// synchronous step on the node's memory in this process (memory.ts), so two requests in one process
// can never both be accepted. Not the static data: n8n 2.41 does not save it from a live webhook,
// and each request works on its own copy of it.
//
// Remembered (`accepted`): every delivery id whose signed timestamp is inside the tolerance (an
// older replay fails the signature check), never dropped to make room: at `maxLive` of them, new
// deliveries are refused for now rather than risk a replay; and the newest `maxRetired` older
// ones, for a sender's genuine retry (same id, new timestamp). A restart empties the memory, so a
// delivery signed before it began (`since`) is refused with a retryable status; senders re-sign
// each retry (Standard Webhooks). Several webhook processes do not share memory
// (docs/reliability.md).
import type { NodeMemory } from './memory';

export type ReplayVerdict =
	/** Not seen before: recorded, the run may start. */
	| 'accepted'
	/** Already accepted once: no run. */
	| 'duplicate'
	/** `maxLive` deliveries inside the window are held: refused for now, nothing recorded. */
	| 'full'
	/** Signed before the memory began (n8n restarted since): refused for now, nothing recorded. */
	| 'beforeMemory';

/**
 * Forgets accepted ids signed before `replayableAfter` beyond `maxRetired`, oldest first; returns
 * how many are live. Sweeps cost O(size), so they are spaced to stay O(1) per delivery.
 */
function sweep(memory: NodeMemory, maxRetired: number, replayableAfter: number): number {
	let retired = 0;
	for (const t of memory.accepted.values()) if (t < replayableAfter) retired++;
	let excess = retired - maxRetired;
	for (const [id, t] of memory.accepted) {
		if (excess <= 0) break;
		if (t < replayableAfter) {
			memory.accepted.delete(id);
			excess--;
		}
	}
	memory.nextSweepAt = memory.accepted.size + Math.max(maxRetired, 64);
	return memory.accepted.size - Math.min(retired, maxRetired);
}

/**
 * Checks the delivery `id` signed at `signedAt` and records it in one synchronous step (no await
 * may come between the two: that is what makes it atomic in the process).
 */
export function checkAndRecord(
	memory: NodeMemory,
	delivery: { id: string; signedAt: number },
	nowSeconds: number,
	toleranceSeconds: number,
): ReplayVerdict {
	const { limits } = memory;
	if (memory.accepted.has(delivery.id)) return 'duplicate';
	if (delivery.signedAt < limits.since) return 'beforeMemory';
	if (memory.accepted.size >= memory.nextSweepAt) {
		const live = sweep(memory, limits.maxRetired, nowSeconds - toleranceSeconds);
		if (live >= limits.maxLive) {
			// Sweep again on the next delivery: room comes back as timestamps leave the window.
			memory.nextSweepAt = memory.accepted.size;
			return 'full';
		}
	}
	memory.accepted.set(delivery.id, delivery.signedAt);
	return 'accepted';
}
