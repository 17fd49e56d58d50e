// Replay protection: a replayed delivery never starts a run. Kept in the node's memory in this
// process (not the static data: n8n 2.41 does not save it from a live webhook): every delivery id
// signed inside the tolerance, never dropped to make room (at `maxLive`, new ones are refused for
// now), and the newest `maxRetired` older ones, for a sender's genuine retry. A restart empties
// it: one signed before it began (`since`) gets a retryable refusal (docs/reliability.md).
import type { NodeMemory } from './memory';

/** `full`: `maxLive` deliveries held; `beforeMemory`: signed before it began (nothing recorded). */
export type ReplayVerdict = 'accepted' | 'duplicate' | 'full' | 'beforeMemory';

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

/** Checks the delivery and records it in one synchronous step (no await: atomic in the process). */
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
