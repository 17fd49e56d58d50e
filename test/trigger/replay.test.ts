/* eslint-disable @n8n/community-nodes/no-restricted-imports */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import {
	hasSeen,
	readSeen,
	rememberDelivery,
	type SeenDelivery,
} from '../../nodes/ErpTrigger/replay';

const NOW = 1_800_000_000;
const TOLERANCE = 300;

function fill(count: number, t: number, prefix: string): SeenDelivery[] {
	return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, t }));
}

describe('replay memory', () => {
	it('remembers every delivery while under the limit', () => {
		let seen: SeenDelivery[] = [];
		for (let i = 0; i < 10; i++)
			seen = rememberDelivery(seen, { id: `evt_${i}`, t: NOW }, NOW, TOLERANCE, 10);
		assert.equal(seen.length, 10);
		for (let i = 0; i < 10; i++) assert.ok(hasSeen(seen, `evt_${i}`));
		assert.ok(!hasSeen(seen, 'evt_10'));
	});

	it('never forgets a delivery still inside the tolerance window, even past the limit', () => {
		let seen = fill(10, NOW - 10, 'fresh_');
		seen = rememberDelivery(seen, { id: 'newest', t: NOW }, NOW, TOLERANCE, 5);
		assert.equal(seen.length, 11);
		assert.ok(hasSeen(seen, 'fresh_0'), 'the oldest replayable id is still remembered');
	});

	it('past the limit, forgets the oldest expired deliveries first and keeps the replayable ones', () => {
		const expired = fill(4, NOW - TOLERANCE - 60, 'old_');
		const fresh = fill(3, NOW - 5, 'fresh_');
		const seen = rememberDelivery(
			[...expired, ...fresh],
			{ id: 'newest', t: NOW },
			NOW,
			TOLERANCE,
			6,
		);
		assert.equal(seen.length, 6);
		assert.deepEqual(
			seen.map((entry) => entry.id),
			['old_2', 'old_3', 'fresh_0', 'fresh_1', 'fresh_2', 'newest'],
		);
	});

	it('reads only well-formed entries from static data', () => {
		assert.deepEqual(readSeen(undefined), []);
		assert.deepEqual(readSeen('evt_1'), []);
		assert.deepEqual(readSeen(['evt_1', { id: 'evt_2', t: NOW }, { id: 3, t: NOW }, null]), [
			{ id: 'evt_2', t: NOW },
		]);
	});
});
