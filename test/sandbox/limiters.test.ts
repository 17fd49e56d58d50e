/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The rate-limit algorithms the sandbox plays (sandbox/limiters.ts), in fake time: what each
 * accepts and refuses, and what its budget headers report.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { newLimiter } from '../../sandbox/limiters';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
/** How many of `n` requests at `times` are accepted. */
const accepted = (config: Parameters<typeof newLimiter>[0], times: number[]) => {
	const limiter = newLimiter(config);
	return times.map((t) => limiter.take(T0 + t).accepted).filter(Boolean).length;
};
const burst = (n: number, at = 0) => Array.from({ length: n }, () => at);

describe('the sandbox limiters', () => {
	test('fixed window: the limit per window, twice the limit across a boundary', () => {
		const config = { limit: 10, windowSeconds: 10 };
		assert.equal(accepted(config, burst(15)), 10);
		const edge = [...burst(5, 0), ...burst(5, 9_000), ...burst(10, 10_000)];
		assert.equal(accepted(config, edge), 20);
		const verdict = newLimiter(config).take(T0);
		assert.deepEqual(verdict, {
			accepted: true,
			limit: 10,
			remaining: 9,
			resetSeconds: 10,
			windowSeconds: 10,
		});
	});

	test('sliding window: never more than the limit in any window', () => {
		const config = { limit: 10, windowSeconds: 10, algorithm: 'sliding-window' as const };
		assert.equal(accepted(config, burst(15)), 10);
		const edge = [...burst(5, 0), ...burst(5, 9_000), ...burst(10, 10_000)];
		assert.equal(accepted(config, edge), 15);
	});

	test('token bucket: a burst of its size, then the rate; a refusal says when the next token comes', () => {
		const config = { limit: 100, windowSeconds: 60, algorithm: 'token-bucket' as const, burst: 10 };
		assert.equal(accepted(config, burst(40)), 10);
		// 40 spaced 610 ms apart all pass (the rate is one per 600 ms); 40 at once, 30 refused.
		assert.equal(
			accepted(
				config,
				Array.from({ length: 40 }, (_, i) => i * 610),
			),
			40,
		);
		const limiter = newLimiter(config);
		for (let i = 0; i < 10; i++) limiter.take(T0);
		const refused = limiter.take(T0);
		assert.equal(refused.accepted, false);
		assert.equal(refused.resetSeconds, 1);
		assert.equal(refused.limit, 10);
		assert.equal(refused.windowSeconds, 6, 'the bucket fills in 6 s: 100 per minute');
	});
});
