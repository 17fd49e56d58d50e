/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * The flash sale in fake time (simulate.ts): 30 orders of 8 requests at once, one key, against
 * each rate-limit algorithm the sandbox plays (sandbox/limiters.ts: fixed window, sliding window,
 * token bucket with a burst of 10) at the specification's 100 per minute, each with budget
 * headers, Retry-After only, or a bare 429; and a token bucket answering a bare 429 (nginx's
 * limit_req) in front of the ERP's fixed window with its own headers. One process, and two
 * queue-mode workers of 10 sharing the key. Every execution finishes (none past Max Rate-Limit
 * Wait); the 429 share stays under 10 % (one process) and 15 % (two workers) against a bare 429 or
 * Retry-After only, under 2 % with budget headers; one process drains within 1.3x of the ideal at
 * the limiter's rate. The control, the pacing of before (headers as permission), misses them.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { RATE_LIMIT_ALGORITHMS } from '../../sandbox/limiters';
import { describeRun, simulate } from './simulate';
import type { SimLimiter, SimulationOptions } from './simulate';

const RATE = { limit: 100, windowSeconds: 60 };
const BASE = { latencyMs: 20, jitterMs: 20, executions: 30, requestsEach: 8 };
const WORKERS = { processes: 2, concurrency: 10 };
const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

const limiter = (
	algorithm: SimLimiter['algorithm'],
	reports: SimLimiter['reports'],
): SimLimiter => ({
	...RATE,
	algorithm,
	reports,
	...(algorithm === 'token-bucket' ? { burst: 10 } : {}),
});

function run(name: string, options: SimulationOptions) {
	const result = simulate(options);
	process.stdout.write(describeRun(name, result));
	return result;
}

describe.each(RATE_LIMIT_ALGORITHMS.map((a) => [a]))(
	'%s at 100 per minute (fake time)',
	(algorithm) => {
		describe.each([['headers'], ['retry-after'], ['bare']] as const)('reporting %s', (reports) => {
			const maxShare = reports === 'headers' ? 0.02 : 0.1;
			test(`one process: every order done, under ${pct(maxShare)} answered 429, drained within 1.3x of the ideal`, () => {
				const r = run(`${algorithm} ${reports}`, {
					...BASE,
					limiters: [limiter(algorithm, reports)],
				});
				assert.equal(r.failed, 0);
				assert.equal(r.done, 30);
				assert.equal(r.accepted, BASE.executions * BASE.requestsEach);
				assert.ok(r.refusedShare < maxShare, `429 share ${pct(r.refusedShare)}`);
				assert.ok(r.drainMs <= 1.3 * r.idealMs, `drain ${r.drainMs} ms, ideal ${r.idealMs} ms`);
			});

			const maxQueueShare = reports === 'headers' ? 0.02 : 0.15;
			test(`two queue-mode workers of 10: every order done, under ${pct(maxQueueShare)} answered 429`, () => {
				for (const staggerMs of [0, 700]) {
					const r = run(`${algorithm} ${reports}, 2 workers, ${staggerMs} ms apart`, {
						...BASE,
						...WORKERS,
						staggerMs,
						limiters: [limiter(algorithm, reports)],
					});
					assert.equal(r.failed, 0);
					assert.equal(r.done, 30);
					assert.ok(r.refusedShare < maxQueueShare, `429 share ${pct(r.refusedShare)}`);
				}
			});
		});
	},
);

describe('a token bucket answering a bare 429 in front of the ERP reporting its own budget (fake time)', () => {
	const limiters = [limiter('token-bucket', 'bare'), limiter('fixed-window', 'headers')];

	test('one process and two workers: every order done, under 10 % and 15 % answered 429', () => {
		const one = run('gateway in front, one process', { ...BASE, limiters });
		assert.equal(one.failed, 0);
		assert.ok(one.refusedShare < 0.1, `429 share ${pct(one.refusedShare)}`);
		assert.ok(one.drainMs <= 1.3 * one.idealMs);
		const two = run('gateway in front, 2 workers', { ...BASE, ...WORKERS, limiters });
		assert.equal(two.failed, 0);
		assert.ok(two.refusedShare < 0.15, `429 share ${pct(two.refusedShare)}`);
	});

	test('control: the pacing of before (the headers as permission) is refused most of the time', () => {
		const r = run('control, gateway in front', { ...BASE, burst: true, limiters });
		assert.ok(r.refusedShare > 0.5, `429 share ${pct(r.refusedShare)}`);
	});

	test('control: the pacing of before against a token bucket with headers misses the 2 %', () => {
		const r = run('control, token bucket with headers', {
			...BASE,
			burst: true,
			limiters: [limiter('token-bucket', 'headers')],
		});
		assert.ok(r.refusedShare > 0.1, `429 share ${pct(r.refusedShare)}`);
	});
});

test("the credential's rate above a bare limiter's (600 for 100 per minute): found by the 429s, under 10 %", () => {
	const r = run('credential 600 vs a bare bucket at 100', {
		...BASE,
		ratePerMinute: 600,
		limiters: [limiter('token-bucket', 'bare')],
	});
	assert.equal(r.failed, 0);
	assert.ok(r.refusedShare < 0.1, `429 share ${pct(r.refusedShare)}`);
});
