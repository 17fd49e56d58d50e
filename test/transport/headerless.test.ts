/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * Servers that report no budget, with fake time (simulate.ts): only Retry-After on a 429, and a
 * bare 429 with nothing at all (the specification's literal "Exceeding it gives 429"). A bare 429
 * is a rate limit, never a retry count: one process and two lose no execution, and the controls
 * (sent as soon as made; the retry policy of before: back-off, at most MAX_RETRIES) show that
 * the counts can fail.
 * Windows of a minute run with a Max Rate-Limit Wait of 180 s: a request that waited in the queue
 * and then meets a full minute-long window waits longer than the default 60 s, in any dialect.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { burst, describeRun, simulate } from './simulate';
import type { SimulationOptions } from './simulate';

const ROWS: Array<[number, number, number, number, number]> = [
	// limit, window (s), latency (ms), executions, requests each
	[30, 10, 5, 30, 6],
	[30, 10, 40, 60, 6],
	[100, 60, 300, 40, 8],
	[10, 2, 40, 12, 5],
];

const run = (name: string, options: SimulationOptions) => {
	const result = simulate({
		maxWaitSeconds: options.windowSeconds >= 60 ? 180 : undefined,
		...options,
	});
	process.stdout.write(describeRun(name, result));
	return result;
};

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

describe('a server that reports nothing but Retry-After (fake time)', () => {
	for (const [limit, windowSeconds, latencyMs, executions, requestsEach] of ROWS) {
		test(`${executions} executions x ${requestsEach} requests, ${limit} per ${windowSeconds} s, ${latencyMs} ms: under 10 % answered 429, at least 85 % of the ceiling`, () => {
			const r = run(`Retry-After only ${limit}/${windowSeconds}s ${latencyMs}ms`, {
				...burst(limit, windowSeconds, latencyMs, executions, requestsEach),
				headerless: true,
			});
			assert.equal(r.done, executions);
			assert.equal(r.accepted, executions * requestsEach);
			assert.ok(r.refusedShare < 0.1, `429 share ${pct(r.refusedShare)}`);
			assert.ok(r.ceilingUse >= 0.85, `ceiling use ${r.ceilingUse.toFixed(3)}`);
		});
	}

	test('control: the same header-less burst sent as soon as made is answered 429 many times', () => {
		const r = simulate({ ...burst(30, 10, 5, 30, 6), headerless: true, naive: true });
		assert.equal(r.done, 30);
		assert.ok(r.refusedShare > 0.3, `429 share ${pct(r.refusedShare)}`);
	});
});

describe('a bare 429, no header at all (fake time)', () => {
	for (const [limit, windowSeconds, latencyMs, executions, requestsEach] of ROWS) {
		test(`${executions} executions x ${requestsEach} requests, ${limit} per ${windowSeconds} s, ${latencyMs} ms: none failed, under 10 % answered 429, at least 80 % of the ceiling`, () => {
			const r = run(`bare 429 ${limit}/${windowSeconds}s ${latencyMs}ms`, {
				...burst(limit, windowSeconds, latencyMs, executions, requestsEach),
				bare: true,
			});
			assert.equal(r.failed, 0);
			assert.equal(r.done, executions);
			assert.equal(r.accepted, executions * requestsEach);
			assert.ok(r.refusedShare < 0.1, `429 share ${pct(r.refusedShare)}`);
			assert.ok(r.ceilingUse >= 0.8, `ceiling use ${r.ceilingUse.toFixed(3)}`);
		});
	}

	test('control: the retry policy of before (5 retries with back-off, nothing learned) loses executions', () => {
		const paced = run('bare 429, paced', { ...burst(30, 10, 5, 30, 6), bare: true });
		const control = run('bare 429, control (retry policy)', {
			...burst(30, 10, 5, 30, 6),
			bare: true,
			retryPolicy: true,
		});
		assert.equal(paced.failed, 0);
		assert.ok(control.failed >= 10, `${control.failed} of 30 executions failed`);
		assert.ok(control.refusedShare > 0.3, `429 share ${pct(control.refusedShare)}`);
	});

	test("the credential's rate set to the server's (180 per minute for 30 per 10 s): under 1 % answered 429 from the first window, at least 95 % of the ceiling", () => {
		for (const [limit, windowSeconds, latencyMs, executions, requestsEach] of ROWS) {
			const r = run(`bare 429 at the credential's rate ${limit}/${windowSeconds}s`, {
				...burst(limit, windowSeconds, latencyMs, executions, requestsEach),
				bare: true,
				ratePerMinute: (limit * 60) / windowSeconds,
			});
			assert.equal(r.failed, 0);
			assert.equal(r.done, executions);
			assert.ok(r.refusedShare < 0.01, `429 share ${pct(r.refusedShare)}`);
			assert.ok(r.ceilingUse >= 0.95, `ceiling use ${r.ceilingUse.toFixed(3)}`);
		}
	});

	test('queue mode, 2 workers of 10 (one 0 to 1.5 s late; 10, 20, 40 ms latency x 0, 20, 40 ms jitter): each learns for itself, no execution lost, under 15 % answered 429 when they start at most 0.3 s apart; the control loses executions', () => {
		const settings: Array<[number, number, number]> = [];
		for (const latencyMs of [10, 20, 40]) {
			for (const jitterMs of [0, 20, 40]) {
				for (const staggerMs of [300, 700]) settings.push([latencyMs, jitterMs, staggerMs]);
			}
		}
		settings.push([20, 40, 0], [20, 40, 1500]);
		for (const [latencyMs, jitterMs, staggerMs] of settings) {
			const name = `bare 429, 2 workers, ${latencyMs} ms latency, ${jitterMs} ms jitter, ${staggerMs} ms late`;
			const r = run(name, {
				...burst(30, 10, latencyMs, 30, 6),
				bare: true,
				processes: 2,
				concurrency: 10,
				jitterMs,
				staggerMs,
			});
			assert.equal(r.failed, 0, name);
			assert.equal(r.done, 30, name);
			// A late worker costs 429s while each learns the other is there (printed, not bound).
			if (staggerMs <= 300)
				assert.ok(r.refusedShare < 0.15, `${name}: 429 share ${pct(r.refusedShare)}`);
		}
		const control = run('bare 429, 2 workers, control (retry policy)', {
			...burst(30, 10, 20, 30, 6),
			bare: true,
			processes: 2,
			concurrency: 10,
			jitterMs: 40,
			retryPolicy: true,
		});
		assert.ok(control.failed >= 5, `${control.failed} of 30 executions failed`);
	});
});
