/**
 * Replay protection for accepted deliveries: "a forged or replayed delivery never starts a run".
 *
 * Why memory, and not only the node's static data: n8n 2.41 does not save a trigger's static data
 * from a live webhook (the run it starts resets the "changed" flag before the save), and each
 * request works on its own copy of it, so concurrent copies of one delivery would all pass a
 * check made there. The check and the record below happen in one synchronous step on one map per
 * n8n process, so two requests in the same process can never both be accepted.
 *
 * What is remembered, per trigger node (workflow id + node id):
 * - every accepted `webhook-id` whose signed timestamp is still inside the tolerance window. A
 *   replay is only dangerous while its timestamp is inside the window: outside it, the signature
 *   check refuses it anyway. These are never forgotten to make room: when `maxLive` of them are
 *   held, new deliveries are refused (the sender retries later) rather than risk a replay.
 * - up to `maxRetired` older ones, the oldest forgotten first, because a sender's genuine retry of
 *   an accepted event comes with the same `webhook-id` and a new timestamp.
 *
 * A restart empties the memory, so the memory also knows when it began (`since`, when n8n loaded
 * this module): a delivery signed before then may have been accepted by the previous process and
 * cannot be checked, so it is refused with a retryable status. That costs a genuine sender
 * nothing: senders re-sign every retry with a new timestamp (Standard Webhooks, and
 * docs/api-contract.md), so its next attempt is checked normally. Deliveries accepted before a restart can
 * therefore never start a second run after it.
 *
 * What it cannot do (docs/reliability.md says so): several n8n processes receiving
 * the same trigger's webhooks (queue mode with more than one webhook processor, or main and a
 * webhook processor both behind the load balancer) do not share memory.
 */

/** A remembered delivery: its `webhook-id` and signed `webhook-timestamp` (Unix seconds). */
export type SeenDelivery = { id: string; t: number };

export type ReplayVerdict =
	/** Not seen before: recorded, the run may start. */
	| 'accepted'
	/** Already accepted once: no run. */
	| 'duplicate'
	/** `maxLive` deliveries inside the window are held: refused for now, nothing recorded. */
	| 'full'
	/** Signed before this memory began (n8n restarted since): refused for now, nothing recorded. */
	| 'beforeMemory';

export interface ReplayMemoryOptions {
	/** Most deliveries inside the tolerance window held per trigger node (default 100,000). */
	maxLive?: number;
	/** Most deliveries past the window kept per trigger node, for genuine retries (default 1,000). */
	maxRetired?: number;
	/** When the memory began, in Unix seconds (default: now). Deliveries signed earlier are refused. */
	since?: number;
}

export const DEFAULT_MAX_LIVE = 100_000;
export const DEFAULT_MAX_RETIRED = 1_000;

class ScopeMemory {
	/** id -> signed timestamp, in the order accepted. */
	readonly entries = new Map<string, number>();

	/** Size at which the next sweep runs: sweeps cost O(size), so they are spaced to stay O(1) per delivery. */
	nextSweepAt: number;

	constructor(private readonly options: Required<Omit<ReplayMemoryOptions, 'since'>>) {
		this.nextSweepAt = options.maxRetired + 1;
	}

	/** Forgets retired entries (timestamp before `replayableAfter`) beyond `maxRetired`, oldest first. */
	sweep(replayableAfter: number): number {
		let retired = 0;
		for (const t of this.entries.values()) if (t < replayableAfter) retired++;
		let excess = retired - this.options.maxRetired;
		if (excess > 0) {
			for (const [id, t] of this.entries) {
				if (excess === 0) break;
				if (t < replayableAfter) {
					this.entries.delete(id);
					excess--;
				}
			}
		}
		const live = this.entries.size - Math.min(retired, this.options.maxRetired);
		this.nextSweepAt = this.entries.size + Math.max(this.options.maxRetired, 64);
		return live;
	}
}

/** Accepted deliveries per trigger node, in this process. */
export class ReplayMemory {
	private readonly scopes = new Map<string, ScopeMemory>();

	private readonly options: Required<Omit<ReplayMemoryOptions, 'since'>>;

	/** Unix seconds: deliveries signed before this may predate the memory. */
	readonly since: number;

	constructor(options: ReplayMemoryOptions = {}) {
		this.options = {
			maxLive: options.maxLive ?? DEFAULT_MAX_LIVE,
			maxRetired: options.maxRetired ?? DEFAULT_MAX_RETIRED,
		};
		this.since = options.since ?? Math.floor(Date.now() / 1000);
	}

	/**
	 * Checks and records in one synchronous step (no await may come between the two, which is what
	 * makes it atomic inside the process).
	 */
	checkAndRecord(
		scope: string,
		delivery: SeenDelivery,
		nowSeconds: number,
		toleranceSeconds: number,
	): ReplayVerdict {
		let memory = this.scopes.get(scope);
		if (memory === undefined) {
			memory = new ScopeMemory(this.options);
			this.scopes.set(scope, memory);
		}
		if (memory.entries.has(delivery.id)) return 'duplicate';
		if (delivery.t < this.since) return 'beforeMemory';
		if (memory.entries.size >= memory.nextSweepAt) {
			const live = memory.sweep(nowSeconds - toleranceSeconds);
			if (live >= this.options.maxLive) {
				// Sweep again on the next delivery: room comes back as timestamps leave the window.
				memory.nextSweepAt = memory.entries.size;
				return 'full';
			}
		}
		memory.entries.set(delivery.id, delivery.t);
		return 'accepted';
	}

	/** How many deliveries a scope holds (for tests and diagnostics). */
	size(scope: string): number {
		return this.scopes.get(scope)?.entries.size ?? 0;
	}
}

/**
 * The memory the ERP Trigger uses: module state, shared by every request in the n8n process, and
 * begun when n8n loads the node.
 */
export let replayMemory = new ReplayMemory();

/** Replaces the process's memory: for tests that need small limits or an earlier `since`. */
export function replaceReplayMemory(memory: ReplayMemory): void {
	replayMemory = memory;
}
