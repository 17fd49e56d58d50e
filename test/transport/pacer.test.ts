/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The pacer (nodes/shared/transport/pacer.ts) and what the attempt loop does on a 429 (request.ts
 * `decide`), with fake time: requests spaced evenly at the rate known (headers, else the
 * credential's, else the specification's 100 per minute), never a burst; a 429 halves the rate
 * whatever the headers said, and the rate recovers step by step; Retry-After and resets obeyed;
 * a 429 is a turn, never a retry count, until Max Rate-Limit Wait.
 *
 * Replaces the tests of the burst model (budget.ts, learned.ts, sharing.ts: pacing.test.ts,
 * learned.test.ts, rateLimited.test.ts); the promises they proved that still hold are kept here:
 * a 429's Retry-After wins over a longer window; a failed request gives its place back; first
 * come, first served, a refused request first; idle keys forgotten, at most MAX_KEYS; a 429 that
 * says when is a turn however many came before; failing on time, the daily quota at once.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { AttemptOutcome } from '../../nodes/shared/transport/attempt';
import {
	CUT_FACTOR,
	IDLE_MS,
	MAX_KEYS,
	MIN_RATE_SHARE,
	RATE_MARGIN,
	RESET_MARGIN_MS,
	SPEC_RATE_PER_MINUTE,
	answered,
	currentRate,
	dueMs,
	newPace,
	prune,
	sent,
	turnAtMs,
} from '../../nodes/shared/transport/pacer';
import type { Pace } from '../../nodes/shared/transport/pacer';
import type { RateLimitInfo } from '../../nodes/shared/transport/rateHeaders';
import { MAX_RETRIES, decide } from '../../nodes/shared/transport/request';
import { NOW } from './simulate';

const SPEC_INTERVAL_MS = 60_000 / (SPEC_RATE_PER_MINUTE * RATE_MARGIN);

/** Sends `n` requests at their turns (each answered at once with `info`); their send times. */
function sendAll(pace: Pace, n: number, from: number, info: RateLimitInfo = {}): number[] {
	const times: number[] = [];
	let now = from;
	for (let i = 0; i < n; i++) {
		now = turnAtMs(pace, 0, now);
		sent(pace, now);
		times.push(now);
		answered(pace, { status: 200, info, sentAtMs: now }, now);
	}
	return times;
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);
const refuse = (pace: Pace, at: number, info: RateLimitInfo = {}, sentAtMs = at) =>
	answered(pace, { status: 429, apiCode: 'rate_limited', info, sentAtMs }, at);

describe('spacing: the rate known, never a burst', () => {
	test("nothing known: the specification's 100 per minute from the first request, evenly", () => {
		const pace = newPace(NOW);
		const times = sendAll(pace, 10, NOW);
		assert.equal(times[0], NOW, 'the first goes at once');
		for (const gap of gaps(times)) assert.equal(Math.round(gap), Math.round(SPEC_INTERVAL_MS));
		// The queue's places wait their turn one interval apart: the fifth goes 4 intervals on.
		const queued = newPace(NOW);
		sent(queued, NOW);
		assert.equal(Math.round(turnAtMs(queued, 4, NOW) - NOW), Math.round(5 * SPEC_INTERVAL_MS));
	});

	test('a turn taken a little late keeps its place (lateness never adds up); one taken long after gets a quarter interval at most', () => {
		// Each request sent 2 ms after its turn (a timer's lateness): 50 turns still take 50 intervals.
		const late = newPace(NOW);
		let now = NOW;
		for (let i = 0; i < 50; i++) {
			const due = Math.max(now, dueMs(late, now));
			now = due + 2;
			sent(late, now, due);
			answered(late, { status: 200, info: {}, sentAtMs: now }, now);
		}
		assert.equal(Math.round(now - NOW), Math.round(49 * SPEC_INTERVAL_MS) + 2);
		// Control: sent without its turn (as before), the 2 ms add up, 98 ms over 50 requests.
		const drifting = newPace(NOW);
		now = NOW;
		for (let i = 0; i < 50; i++) {
			now = Math.max(now, dueMs(drifting, now)) + 2;
			sent(drifting, now);
		}
		assert.equal(Math.round(now - NOW), Math.round(49 * SPEC_INTERVAL_MS) + 100);
		// A key idle for a minute gets a quarter interval of credit at most: never a burst.
		const idle = newPace(NOW);
		sent(idle, NOW);
		const later = NOW + 60_000;
		sent(idle, later, dueMs(idle, later));
		assert.equal(Math.round(turnAtMs(idle, 0, later) - later), Math.round(0.75 * SPEC_INTERVAL_MS));
	});

	test("the credential's rate, when set, spaces requests instead", () => {
		const pace = newPace(NOW);
		pace.credentialRate = 600;
		for (const gap of gaps(sendAll(pace, 5, NOW))) {
			assert.equal(Math.round(gap), Math.round(60_000 / (600 * RATE_MARGIN)));
		}
	});

	test('headers cap the rate (limit per window) and never grant a burst, even with budget left', () => {
		const pace = newPace(NOW);
		// 1 per minute from the credential: the headers' 30 per 10 s win over it.
		pace.credentialRate = 1;
		const info = { limit: 30, remaining: 29, resetSeconds: 10 };
		const times = sendAll(pace, 6, NOW, info);
		const interval = 10_000 / (30 * RATE_MARGIN);
		for (const gap of gaps(times).slice(1)) assert.equal(Math.round(gap), Math.round(interval));
		// Control: without headers the credential's rate spaces them by a minute.
		const bare = newPace(NOW);
		bare.credentialRate = 1;
		assert.ok(gaps(sendAll(bare, 2, NOW))[0] > 59_000);
	});

	test("what is left of the window is spread to its end (others' use shows in the count)", () => {
		const pace = newPace(NOW);
		sent(pace, NOW);
		// 100 per minute, but only 5 left for the next 30 s: one every 6 s.
		answered(
			pace,
			{ status: 200, info: { limit: 100, remaining: 5, resetSeconds: 30 }, sentAtMs: NOW },
			NOW,
		);
		assert.equal(Math.round(turnAtMs(pace, 0, NOW) - NOW), 6000);
	});

	test('a window used up closes the key until its end; no burst at the reopening', () => {
		const pace = newPace(NOW);
		sent(pace, NOW);
		answered(
			pace,
			{ status: 200, info: { limit: 10, remaining: 0, resetSeconds: 4 }, sentAtMs: NOW },
			NOW,
		);
		const reopening = NOW + 4000 + RESET_MARGIN_MS;
		assert.equal(turnAtMs(pace, 0, NOW), reopening);
		const times = sendAll(pace, 4, NOW);
		assert.equal(times[0], reopening);
		for (const gap of gaps(times)) assert.ok(gap >= 4000 / (10 * RATE_MARGIN) - 1, `${gap}`);
	});
});

describe('a 429: slower, then recovering', () => {
	test('halves the rate even when the headers said budget was left, and recovers step by step', () => {
		const pace = newPace(NOW);
		const info = { limit: 100, remaining: 80, resetSeconds: 60 };
		sendAll(pace, 3, NOW, info);
		const before = currentRate(pace);
		refuse(pace, NOW + 5000, info);
		assert.equal(currentRate(pace), before * CUT_FACTOR);
		// Each accepted request raises it a little; it is back at the known rate in the end.
		const rates: number[] = [];
		let now = NOW + 6000;
		for (let i = 0; i < 60 && pace.cutRate !== undefined; i++) {
			now = turnAtMs(pace, 0, now);
			sent(pace, now);
			answered(pace, { status: 200, info: {}, sentAtMs: now }, now);
			rates.push(currentRate(pace));
		}
		assert.ok(rates.length > 20, `${rates.length} steps: step by step, not at once`);
		for (const [i, rate] of rates.entries()) if (i > 0) assert.ok(rate >= rates[i - 1]);
		assert.equal(pace.cutRate, undefined);
		assert.equal(currentRate(pace), before);
	});

	test('requests already in flight at the cut cut no further; later refusals cut again, to a floor', () => {
		const pace = newPace(NOW);
		refuse(pace, NOW + 100, {}, NOW);
		const once = currentRate(pace);
		refuse(pace, NOW + 110, {}, NOW + 50);
		assert.equal(currentRate(pace), once, 'sent before the cut');
		refuse(pace, NOW + 2000, {}, NOW + 1500);
		assert.equal(currentRate(pace), once * CUT_FACTOR, 'sent after it');
		for (let i = 0; i < 20; i++) refuse(pace, NOW + 3000 + i * 100, {}, NOW + 3000 + i * 100);
		assert.equal(currentRate(pace), SPEC_RATE_PER_MINUTE * MIN_RATE_SHARE);
	});

	test('Retry-After closes the key until then, else the reset; a bare 429 for one interval at the new rate', () => {
		const named = newPace(NOW);
		refuse(named, NOW, { retryAfterSeconds: 7, resetSeconds: 40 });
		assert.equal(turnAtMs(named, 0, NOW), NOW + 7000, 'Retry-After wins over a longer window');
		const reset = newPace(NOW);
		refuse(reset, NOW, { limit: 10, remaining: 0, resetSeconds: 3 });
		assert.equal(turnAtMs(reset, 0, NOW), NOW + 3000 + RESET_MARGIN_MS);
		const bare = newPace(NOW);
		refuse(bare, NOW);
		assert.equal(Math.round(turnAtMs(bare, 0, NOW) - NOW), Math.round(2 * SPEC_INTERVAL_MS));
	});

	test('a request with no answer, and an exhausted daily quota, leave the rate as it was', () => {
		const pace = newPace(NOW);
		sent(pace, NOW);
		answered(pace, undefined, NOW + 10);
		assert.equal(pace.inFlight, 0, 'its place is given back');
		answered(
			pace,
			{
				status: 429,
				apiCode: 'daily_quota_exceeded',
				info: { retryAfterSeconds: 9000 },
				sentAtMs: NOW,
			},
			NOW,
		);
		assert.equal(pace.cutRate, undefined);
		assert.equal(pace.closedUntilMs, -Infinity);
	});
});

describe('the attempt loop on a 429 (decide)', () => {
	const tooMany = (info: RateLimitInfo, apiCode = 'rate_limited'): AttemptOutcome => ({
		kind: 'status',
		status: 429,
		apiCode,
		info,
	});
	const on = (
		outcome: AttemptOutcome,
		waitedMs: number,
		closedForMs: number,
		maxWaitSeconds = 60,
	) =>
		decide(
			outcome,
			{ method: 'POST' },
			{ retry: 0, maxWaitSeconds, waitedMs, closedForMs },
			() => 0.5,
		);

	test('that says when is a turn, however many came before, while the time lasts', () => {
		for (let n = 0; n < MAX_RETRIES * 10; n++) {
			assert.deepEqual(on(tooMany({ retryAfterSeconds: 1 }), n * 1000, 1000), { action: 'turn' });
		}
	});

	test('fails on time, saying whether the server named the wait', () => {
		assert.deepEqual(on(tooMany({ retryAfterSeconds: 90 }), 0, 90_000), {
			action: 'fail',
			reason: 'waitCap',
			waitSeconds: 90,
			waitedSeconds: 0,
			estimated: false,
		});
		assert.deepEqual(on(tooMany({}), 55_000, 10_000), {
			action: 'fail',
			reason: 'waitCap',
			waitSeconds: 10,
			waitedSeconds: 55,
			estimated: true,
		});
		assert.deepEqual(on(tooMany({}), 50_000, 10_000), { action: 'turn' }, 'exactly what is left');
	});

	test('the daily quota fails at once, whatever the cap', () => {
		assert.deepEqual(on(tooMany({ retryAfterSeconds: 5 }, 'daily_quota_exceeded'), 0, 0, 3600), {
			action: 'fail',
			reason: 'dailyQuota',
			waitSeconds: 5,
		});
	});
});

describe('the process keeps its keys', () => {
	test('first come, first served; a refused request first', () => {
		const pace = newPace(NOW);
		sent(pace, NOW);
		assert.ok(turnAtMs(pace, 0, NOW) < turnAtMs(pace, 1, NOW));
		assert.ok(turnAtMs(pace, 1, NOW) < turnAtMs(pace, 2, NOW));
	});

	test('idle keys are forgotten, and there are never more than MAX_KEYS', () => {
		const paces = new Map<string, Pace>();
		for (let i = 0; i < MAX_KEYS + 50; i++) paces.set(`k${i}`, newPace(NOW + i));
		const busy = newPace(NOW - IDLE_MS * 2);
		busy.inFlight = 1;
		paces.set('busy', busy);
		prune(paces, NOW + MAX_KEYS + 50);
		assert.equal(paces.size, MAX_KEYS);
		assert.ok(paces.has('busy'), 'a key in use is kept');
		assert.ok(!paces.has('k0') && paces.has(`k${MAX_KEYS + 49}`), 'oldest idle go first');
		prune(paces, NOW + MAX_KEYS + 50 + IDLE_MS + 1000);
		assert.deepEqual([...paces.keys()], ['busy']);
	});
});
