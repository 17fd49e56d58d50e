/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/** The replay memory (nodes/ErpTrigger/replay.ts) as a pure unit, with an explicit clock and a memory with small limits passed in. */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import type { MemoryLimits } from '../../nodes/ErpTrigger/memory';
import { TriggerMemory } from '../../nodes/ErpTrigger/memory';
import { checkAndRecord } from '../../nodes/ErpTrigger/replay';

/** A process's memory with these limits, checked one trigger node (`scope`) at a time. */
class ReplayMemory {
	private readonly memory: TriggerMemory;

	constructor(limits: Partial<MemoryLimits>) {
		this.memory = new TriggerMemory(limits);
	}

	checkAndRecord(
		scope: string,
		delivery: { id: string; t: number },
		now: number,
		tolerance: number,
	) {
		const { id, t: signedAt } = delivery;
		return checkAndRecord(this.memory.node(scope), { id, signedAt }, now, tolerance);
	}

	size(scope: string): number {
		return this.memory.node(scope).accepted.size;
	}
}

const NOW = 1_800_000_000;
const TOLERANCE = 300;
const SCOPE = 'wf1/node1';

describe('replay memory', () => {
	it('accepts a delivery once, then calls every copy a duplicate', () => {
		const memory = new ReplayMemory({ since: 0 });
		assert.equal(memory.checkAndRecord(SCOPE, { id: 'evt_1', t: NOW }, NOW, TOLERANCE), 'accepted');
		assert.equal(
			memory.checkAndRecord(SCOPE, { id: 'evt_1', t: NOW }, NOW, TOLERANCE),
			'duplicate',
		);
		// A genuine retry: same id, new timestamp.
		assert.equal(
			memory.checkAndRecord(SCOPE, { id: 'evt_1', t: NOW + 60 }, NOW + 60, TOLERANCE),
			'duplicate',
		);
		assert.equal(memory.checkAndRecord(SCOPE, { id: 'evt_2', t: NOW }, NOW, TOLERANCE), 'accepted');
	});

	it('keeps trigger nodes apart', () => {
		const memory = new ReplayMemory({ since: 0 });
		assert.equal(
			memory.checkAndRecord('wf1/a', { id: 'evt_1', t: NOW }, NOW, TOLERANCE),
			'accepted',
		);
		assert.equal(
			memory.checkAndRecord('wf1/b', { id: 'evt_1', t: NOW }, NOW, TOLERANCE),
			'accepted',
		);
		assert.equal(
			memory.checkAndRecord('wf2/a', { id: 'evt_1', t: NOW }, NOW, TOLERANCE),
			'accepted',
		);
	});

	it('never forgets a delivery inside the tolerance window, however many come after it', () => {
		const memory = new ReplayMemory({ maxRetired: 5, since: 0 });
		assert.equal(memory.checkAndRecord(SCOPE, { id: 'first', t: NOW }, NOW, TOLERANCE), 'accepted');
		for (let i = 0; i < 5_000; i++) {
			assert.equal(
				memory.checkAndRecord(SCOPE, { id: `evt_${i}`, t: NOW }, NOW + 1, TOLERANCE),
				'accepted',
			);
		}
		assert.equal(memory.size(SCOPE), 5_001);
		assert.equal(
			memory.checkAndRecord(SCOPE, { id: 'first', t: NOW }, NOW + TOLERANCE, TOLERANCE),
			'duplicate',
			'still inside the window: remembered',
		);
	});

	it('past the window, keeps only the newest maxRetired deliveries, oldest forgotten first', () => {
		const memory = new ReplayMemory({ maxRetired: 3, since: 0 });
		for (let i = 0; i < 10; i++)
			memory.checkAndRecord(SCOPE, { id: `old_${i}`, t: NOW }, NOW, TOLERANCE);
		const later = NOW + TOLERANCE + 1;
		// Enough new deliveries to reach the next sweep.
		for (let i = 0; i < 100; i++)
			memory.checkAndRecord(SCOPE, { id: `new_${i}`, t: later }, later, TOLERANCE);
		assert.equal(memory.size(SCOPE) < 110, true, 'retired entries were swept');
		for (const id of ['old_7', 'old_8', 'old_9'])
			assert.equal(
				memory.checkAndRecord(SCOPE, { id, t: later }, later, TOLERANCE),
				'duplicate',
				id,
			);
		assert.equal(
			memory.checkAndRecord(SCOPE, { id: 'old_0', t: later }, later, TOLERANCE),
			'accepted',
			'the oldest retired id was forgotten',
		);
		for (let i = 0; i < 100; i++)
			assert.equal(
				memory.checkAndRecord(SCOPE, { id: `new_${i}`, t: later }, later, TOLERANCE),
				'duplicate',
			);
	});

	it('refuses new deliveries rather than forget live ones when maxLive is reached, and recovers', () => {
		const memory = new ReplayMemory({ maxLive: 100, maxRetired: 0, since: 0 });
		let accepted = 0;
		let full = 0;
		for (let i = 0; i < 300; i++) {
			const verdict = memory.checkAndRecord(SCOPE, { id: `evt_${i}`, t: NOW }, NOW, TOLERANCE);
			if (verdict === 'accepted') accepted++;
			if (verdict === 'full') full++;
		}
		assert.ok(accepted >= 100 && accepted <= 100 + 64, `accepted ${accepted}`);
		assert.equal(accepted + full, 300);
		for (let i = 0; i < accepted; i++)
			assert.equal(
				memory.checkAndRecord(SCOPE, { id: `evt_${i}`, t: NOW }, NOW, TOLERANCE),
				'duplicate',
				`evt_${i} is still remembered`,
			);
		// Once the timestamps leave the window, there is room again.
		const later = NOW + TOLERANCE + 1;
		assert.equal(
			memory.checkAndRecord(SCOPE, { id: 'fresh', t: later }, later, TOLERANCE),
			'accepted',
		);
	});

	it('refuses a delivery signed before the memory began (a restart), without recording it', () => {
		const memory = new ReplayMemory({ since: NOW });
		const before = { id: 'evt_before_restart', t: NOW - 1 };
		assert.equal(memory.checkAndRecord(SCOPE, before, NOW + 5, TOLERANCE), 'beforeMemory');
		assert.equal(memory.checkAndRecord(SCOPE, before, NOW + 6, TOLERANCE), 'beforeMemory');
		assert.equal(memory.size(SCOPE), 0);
		// The sender's retry comes re-signed with a new timestamp: checked and accepted once.
		const retry = { id: 'evt_before_restart', t: NOW + 10 };
		assert.equal(memory.checkAndRecord(SCOPE, retry, NOW + 10, TOLERANCE), 'accepted');
		assert.equal(memory.checkAndRecord(SCOPE, retry, NOW + 11, TOLERANCE), 'duplicate');
		assert.equal(
			memory.checkAndRecord(SCOPE, { id: 'evt_at_start', t: NOW }, NOW, TOLERANCE),
			'accepted',
		);
	});

	it('begins when it is made, by default', () => {
		const before = Math.floor(Date.now() / 1000);
		const since = new TriggerMemory().limits.since;
		assert.ok(since >= before && since <= Math.floor(Date.now() / 1000));
	});
});
