/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a test of the test helpers, not a node */
/**
 * The real-n8n layer's counting helper (test/e2e/count.ts) fails both ways: a count that
 * reaches the expected number and then gets an extra a moment later (the late run that n8n
 * records after the webhook answered), and a count that never gets there. The counters here
 * are plain closures moved by real timers, so each case shows exactly the timing it names.
 */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import { expectCount, type Reading } from '../e2e/count';

const FAST = { deadlineMs: 1_500, quietMs: 800, pollMs: 20 };

/** A counter at `initial` that becomes `later` after `afterMs`. */
function counterMovingTo(initial: number, later: number, afterMs: number) {
	let count = initial;
	setTimeout(() => {
		count = later;
	}, afterMs);
	return async (): Promise<Reading<string>> => ({ count, detail: `count ${count}` });
}

describe('expectCount (the real-n8n counting helper)', () => {
	it('accepts a count that reaches the expected number late and stays there', async () => {
		const detail = await expectCount('runs', 3, counterMovingTo(2, 3, 300), FAST);
		assert.equal(detail, 'count 3');
	});

	it('control: an extra that arrives after the expected count was reached fails the helper', async () => {
		// Reaches 1 at once (the answer), then a late second run 300 ms into the quiet period.
		await assert.rejects(
			expectCount('runs', 1, counterMovingTo(1, 2, 300), FAST),
			/Counted 2 runs during the 0.8 s quiet period, expected exactly 1: "count 2"/,
		);
	});

	it('control: an expected run that never comes fails with the deadline message', async () => {
		await assert.rejects(
			expectCount('runs', 3, counterMovingTo(2, 2, 0), FAST),
			/Timed out after 1.5 s waiting for runs: counted 2 of 3: "count 2"/,
		);
	});

	it('fails at once on a count above the expected number, before any quiet period', async () => {
		const started = Date.now();
		await assert.rejects(
			expectCount('runs', 1, counterMovingTo(2, 2, 0), FAST),
			/Counted 2 runs before the quiet period, expected exactly 1/,
		);
		assert.ok(Date.now() - started < FAST.quietMs, 'no wait for the quiet period');
	});

	it('does not accept the count while the reading is not settled', async () => {
		let settled = false;
		setTimeout(() => {
			settled = true;
		}, 300);
		const started = Date.now();
		await expectCount('runs', 1, async () => ({ count: 1, settled }), FAST);
		assert.ok(Date.now() - started >= 300 + FAST.quietMs - 50);
		await assert.rejects(
			expectCount('runs', 1, async () => ({ count: 1, settled: false }), FAST),
			/Timed out after 1.5 s waiting for runs: counted 1 of 1 \(not settled\)/,
		);
	});
});
