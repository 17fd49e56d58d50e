/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Unit tests with fake time and fake randomness for the rate-limit headers (rateHeaders.ts) and
 * the retry policy (request.ts `decide`). The integration tests prove the same behaviour against
 * the sandbox; these pin the numbers. A 429 is not the retry policy's: every 429 is a turn or a
 * failure on time (pacer.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { AttemptOutcome } from '../../nodes/shared/transport/attempt';
import { parseRetryAfter, readRateLimitHeaders } from '../../nodes/shared/transport/rateHeaders';
import {
	BACKOFF_CAP_SECONDS,
	MAX_RETRIES,
	backoffSeconds,
	decide,
} from '../../nodes/shared/transport/request';
import type { HttpMethod } from '../../nodes/shared/transport/settings';

/** The retry policy for an answer other than a 429, `retry` retries made so far. */
const decideRetry = (
	outcome: AttemptOutcome,
	method: HttpMethod,
	retry: number,
	maxWaitSeconds: number,
	random: () => number,
) => decide(outcome, { method }, { retry, maxWaitSeconds, waitedMs: 0, closedForMs: 0 }, random);

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const fixed = (value: number) => () => value;

describe('Retry-After and RateLimit headers', () => {
	test('Retry-After as delta-seconds, as an HTTP date, and unreadable', () => {
		assert.equal(parseRetryAfter('7', NOW), 7);
		assert.equal(parseRetryAfter('0', NOW), 0);
		assert.equal(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW), 90);
		assert.equal(
			parseRetryAfter(new Date(NOW - 5_000).toUTCString(), NOW),
			0,
			'a past date means now',
		);
		assert.equal(parseRetryAfter('soon', NOW), undefined);
		assert.equal(parseRetryAfter('-3', NOW), undefined);
		assert.equal(parseRetryAfter(undefined, NOW), undefined);
	});

	test('headers are read case-insensitively, arrays take the first value', () => {
		const info = readRateLimitHeaders(
			{
				'RateLimit-Limit': '100',
				'ratelimit-remaining': ['4', '9'],
				'RATELIMIT-RESET': '12',
				'retry-after': '3',
			},
			NOW,
		);
		assert.deepEqual(info, {
			limit: 100,
			remaining: 4,
			resetSeconds: 12,
			retryAfterSeconds: 3,
			dialect: 'ietf-fields',
		});
		assert.deepEqual(readRateLimitHeaders({}, NOW), {
			limit: undefined,
			remaining: undefined,
			resetSeconds: undefined,
			retryAfterSeconds: undefined,
			dialect: undefined,
		});
	});
});

describe('backoff', () => {
	test('full jitter: uniform in [0, min(cap, 0.5 s * 2^retry)]', () => {
		assert.equal(backoffSeconds(0, fixed(0)), 0);
		assert.equal(backoffSeconds(0, fixed(0.999999)), 0.4999995);
		assert.equal(backoffSeconds(3, fixed(0.5)), 2);
		assert.equal(backoffSeconds(20, fixed(1)), BACKOFF_CAP_SECONDS, 'capped');
		let previousCeiling = 0;
		for (let retry = 0; retry < 6; retry++) {
			const ceiling = backoffSeconds(retry, fixed(1));
			assert.ok(ceiling >= previousCeiling, 'ceilings grow');
			previousCeiling = ceiling;
		}
	});
});

describe('retry policy', () => {
	const status = (
		code: number,
		extra: Partial<Extract<AttemptOutcome, { kind: 'status' }>> = {},
	): AttemptOutcome => ({
		kind: 'status',
		status: code,
		info: {},
		...extra,
	});
	const network = (code: string): AttemptOutcome => ({ kind: 'network', code });
	const half = fixed(0.5);

	test('GET is retried on 5xx, resets, timeouts and unreadable bodies', () => {
		for (const outcome of [
			status(503),
			status(500),
			network('ECONNRESET'),
			network('ETIMEDOUT'),
			network('ECONNABORTED'),
			network('ECONNREFUSED'),
			{ kind: 'badBody', info: {} } as AttemptOutcome,
		]) {
			assert.equal(
				decideRetry(outcome, 'GET', 0, 60, half).action,
				'retry',
				JSON.stringify(outcome),
			);
		}
		assert.deepEqual(
			decideRetry(status(503, { info: { retryAfterSeconds: 2 } }), 'GET', 0, 60, half),
			{
				action: 'retry',
				waitSeconds: 2,
			},
		);
	});

	test('POST and PATCH are retried only on a refused connection', () => {
		for (const method of ['POST', 'PATCH'] as const) {
			assert.equal(decideRetry(network('ECONNREFUSED'), method, 0, 60, half).action, 'retry');
			for (const outcome of [
				status(500),
				status(503),
				network('ECONNRESET'),
				network('ETIMEDOUT'),
				{ kind: 'badBody', info: {} } as AttemptOutcome,
				{ kind: 'network' } as AttemptOutcome,
			]) {
				assert.deepEqual(decideRetry(outcome, method, 0, 60, half), {
					action: 'fail',
					reason: 'notRetryable',
				});
			}
		}
	});

	test('4xx other than 429 is never retried', () => {
		for (const code of [400, 401, 403, 404, 409, 422]) {
			assert.deepEqual(decideRetry(status(code), 'GET', 0, 60, half), {
				action: 'fail',
				reason: 'notRetryable',
			});
		}
	});

	test('a wait longer than maxWaitSeconds fails instead of sleeping', () => {
		assert.equal(
			decideRetry(status(503, { info: { retryAfterSeconds: 60 } }), 'GET', 0, 60, half).action,
			'retry',
		);
		assert.deepEqual(
			decideRetry(status(503, { info: { retryAfterSeconds: 120 } }), 'GET', 0, 60, half),
			{
				action: 'fail',
				reason: 'waitCap',
				waitSeconds: 120,
			},
		);
	});

	test('our own backoff is capped by maxWaitSeconds instead of failing', () => {
		assert.deepEqual(decideRetry(status(503), 'GET', 4, 1, fixed(1)), {
			action: 'retry',
			waitSeconds: 1,
		});
		assert.deepEqual(decideRetry(network('ECONNREFUSED'), 'POST', 4, 60, fixed(0.5)), {
			action: 'retry',
			waitSeconds: 4,
		});
	});

	test('retries are bounded', () => {
		assert.equal(decideRetry(status(503), 'GET', MAX_RETRIES - 1, 60, half).action, 'retry');
		assert.deepEqual(decideRetry(status(503), 'GET', MAX_RETRIES, 60, half), {
			action: 'fail',
			reason: 'exhausted',
		});
		assert.deepEqual(decideRetry(network('ECONNREFUSED'), 'POST', MAX_RETRIES, 60, half), {
			action: 'fail',
			reason: 'exhausted',
		});
	});
});

// The pacer (spacing, a 429 slowing the key down) is covered in pacer.test.ts.
