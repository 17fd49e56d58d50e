/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Learning the window of a server that reports nothing but Retry-After
 * (nodes/shared/transport/learned.ts), with fake time: the gate, the probe, the slow start, the
 * capacity and length learned from the first 429 of a window, and their adjustment up and down.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import {
	GROW_AFTER_WINDOWS,
	gateWaitMs,
	learnedAnswer,
	learnedDecision,
	learnedSent,
	newLearned,
} from '../../nodes/shared/transport/learned';
import type { Learned } from '../../nodes/shared/transport/learned';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const MARGIN = 20;
const POLL = 20;

const decide = (l: Learned, position: number, inFlight: number, at: number, probing = false) =>
	learnedDecision(l, position, inFlight, probing, at, MARGIN, POLL);
const accept = (l: Learned, sentAtMs: number, at: number) =>
	learnedAnswer(l, { status: 200, rateLimited: false, sentAtMs }, at);
const refuse = (l: Learned, sentAtMs: number, at: number, retryAfterSeconds: number) =>
	learnedAnswer(l, { status: 429, rateLimited: true, retryAfterSeconds, sentAtMs }, at);

/** A window opened by a probe at `at`, then `count` accepted requests (the probe included). */
function fill(l: Learned, at: number, count: number): void {
	learnedSent(l, at, true);
	for (let i = 0; i < count; i++) accept(l, at, at + 1);
}

describe('a server with no budget headers', () => {
	test('a window opens with one probe; nothing else goes until its answer', () => {
		const l = newLearned();
		assert.deepEqual(decide(l, 0, 0, NOW), { action: 'send', probe: true });
		assert.equal(decide(l, 1, 0, NOW).action, 'wait');
		learnedSent(l, NOW, true);
		assert.deepEqual(decide(l, 0, 1, NOW, true), { action: 'wait', ms: POLL, reason: 'answer' });
	});

	test('capacity unknown: released gradually, one more in flight per four accepted', () => {
		const l = newLearned();
		fill(l, NOW, 1);
		assert.equal(decide(l, 0, 0, NOW + 2).action, 'send');
		assert.equal(decide(l, 0, 1, NOW + 2).action, 'wait', 'one in flight at first');
		fill(l, NOW, 0);
		for (let i = 0; i < 11; i++) accept(l, NOW, NOW + 3);
		// 12 accepted: 1 + 3 in flight.
		assert.equal(decide(l, 3, 0, NOW + 4).action, 'send');
		assert.equal(decide(l, 4, 0, NOW + 4).action, 'wait');
	});

	test('the first 429 of a window closes the gate and tells the capacity and length', () => {
		const l = newLearned();
		fill(l, NOW, 30);
		refuse(l, NOW + 100, NOW + 200, 10);
		assert.equal(l.capacity, 30);
		assert.equal(l.windowMs, 10_200);
		assert.equal(gateWaitMs(l, NOW + 200, MARGIN), 10_000 + MARGIN);
		// Other refusals of the same window change no figure (the gate follows the latest Retry-After).
		refuse(l, NOW + 100, NOW + 210, 10);
		assert.equal(l.capacity, 30);
		// Reopened: a probe, then the capacity, then a wait for the window's end.
		const open = NOW + 10_210 + MARGIN;
		assert.equal(gateWaitMs(l, open, MARGIN), undefined);
		assert.deepEqual(decide(l, 0, 0, open), { action: 'send', probe: true });
		fill(l, open, 1);
		assert.equal(decide(l, 28, 0, open + 5).action, 'send');
		assert.equal(decide(l, 29, 0, open + 5).action, 'wait');
		for (let i = 0; i < 29; i++) accept(l, open + 5, open + 6);
		assert.deepEqual(decide(l, 0, 0, open + 10), {
			action: 'wait',
			ms: 10_200 + MARGIN - 10,
			reason: 'reset',
		});
	});

	test(`adjusted up after ${GROW_AFTER_WINDOWS} full windows without a 429, down on a 429`, () => {
		const l = newLearned();
		fill(l, NOW, 10);
		refuse(l, NOW + 1, NOW + 2, 1);
		assert.equal(l.capacity, 10);
		let at = NOW + 1002 + MARGIN;
		for (let w = 0; w < GROW_AFTER_WINDOWS; w++) {
			assert.deepEqual(decide(l, 0, 0, at), { action: 'send', probe: true });
			fill(l, at, 10);
			at += l.windowMs! + MARGIN;
		}
		assert.equal(decide(l, 0, 0, at).action, 'send');
		assert.equal(l.capacity, 11);
		fill(l, at, 9);
		refuse(l, at + 5, at + 6, 1);
		assert.equal(l.capacity, 9);
	});

	test('a 429 before anything was accepted in a window lengthens the window, not the capacity', () => {
		const l = newLearned();
		fill(l, NOW, 10);
		refuse(l, NOW + 1, NOW + 2, 1);
		const open = NOW + 1002 + MARGIN;
		decide(l, 0, 0, open);
		learnedSent(l, open, true);
		refuse(l, open, open + 5, 1);
		assert.equal(l.capacity, 10);
		assert.ok(l.windowMs! >= open + 1005 - NOW, String(l.windowMs));
	});

	test('a bare 429 closes the gate for the window the stated rate gives the capacity (100 per minute)', () => {
		const l = newLearned();
		fill(l, NOW, 30);
		learnedAnswer(l, { status: 429, rateLimited: true, sentAtMs: NOW + 50 }, NOW + 60);
		assert.equal(l.capacity, 30);
		// 30 accepted at 100 per minute: 18 s from the opening; the window is longer than 50 ms.
		assert.equal(gateWaitMs(l, NOW + 60, 0), 18_000 - 60);
		assert.deepEqual(l.bounds, { minMs: 50 });
		// With the credential's rate (180 per minute) the same capacity gives 10 s.
		const rated = newLearned();
		rated.ratePerMinute = 180;
		fill(rated, NOW, 30);
		learnedAnswer(rated, { status: 429, rateLimited: true, sentAtMs: NOW + 50 }, NOW + 60);
		assert.equal(gateWaitMs(rated, NOW, 0), 10_000);
	});

	test('a bare server: the window length is searched between what was refused and what was accepted', () => {
		const l = newLearned();
		fill(l, NOW, 30);
		learnedAnswer(l, { status: 429, rateLimited: true, sentAtMs: NOW + 50 }, NOW + 60);
		// The probe at the reopening is accepted: the window is at most 18 s; the next full one
		// ends at the middle of the bounds.
		const open = NOW + 18_000 + MARGIN;
		assert.deepEqual(decide(l, 0, 0, open), { action: 'send', probe: true });
		fill(l, open, 30);
		assert.deepEqual(l.bounds, { minMs: 50, maxMs: 18_000 + MARGIN });
		const middle = Math.ceil((50 + 18_000 + MARGIN) / 2);
		assert.deepEqual(decide(l, 0, 0, open + 10), {
			action: 'wait',
			ms: middle + MARGIN - 10,
			reason: 'reset',
		});
		// A probe there refused (the window is 10 s... no: longer than the middle): the previous
		// window is still running; the gate closes until the middle of the new bounds.
		const probe = open + middle + MARGIN;
		assert.deepEqual(decide(l, 0, 0, probe), { action: 'send', probe: true });
		learnedSent(l, probe, true);
		learnedAnswer(l, { status: 429, rateLimited: true, sentAtMs: probe }, probe + 5);
		assert.equal(l.capacity, 30, 'a refused probe changes the length, not the capacity');
		assert.equal(l.bounds!.minMs, middle + MARGIN);
		assert.ok(gateWaitMs(l, probe + 5, 0)! > 0);
		assert.ok(open + 18_000 + MARGIN >= l.closedUntilMs!, 'never past the upper bound');
	});

	test('the credential rate spaces requests evenly from the first one, with no slow start', () => {
		const l = newLearned();
		l.ratePerMinute = 120;
		fill(l, NOW, 1);
		learnedSent(l, NOW, false);
		// 500 ms apart (plus the margin for jitter): the head waits, and the next a spacing more.
		const first = decide(l, 0, 0, NOW + 100);
		assert.equal(first.action, 'wait');
		assert.ok(first.action === 'wait' && first.reason === 'release' && first.ms === 405);
		const second = decide(l, 1, 0, NOW + 100);
		assert.ok(second.action === 'wait' && second.ms === 910, JSON.stringify(second));
		assert.deepEqual(decide(l, 0, 5, NOW + 505), { action: 'send', probe: false });
	});
});
