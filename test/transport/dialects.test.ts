/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Rate-limit header dialects (nodes/shared/transport/rateHeaders.ts): each read into the same budget,
 * chosen by the headers present; Unix-time resets in seconds and milliseconds; several policies;
 * garbage ignored. Pure functions with a fixed clock.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import {
	MAX_RESET_SECONDS,
	readBudget,
	readRateLimitHeaders,
	resetSecondsOf,
} from '../../nodes/shared/transport/rateHeaders';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = NOW / 1000;
const budget = { limit: 30, remaining: 29, resetSeconds: 10 };

describe('one reader per dialect, the same budget', () => {
	test('ietf-fields: RateLimit-Limit / -Remaining / -Reset (a policy after the limit is skipped)', () => {
		assert.deepEqual(
			readBudget(
				{ 'RateLimit-Limit': '30', 'RateLimit-Remaining': '29', 'RateLimit-Reset': '10' },
				NOW,
			),
			{ ...budget, dialect: 'ietf-fields' },
		);
		assert.deepEqual(
			readBudget(
				{ 'ratelimit-limit': '30, 30;w=10', 'ratelimit-remaining': '29', 'ratelimit-reset': '10' },
				NOW,
			),
			{ ...budget, dialect: 'ietf-fields' },
		);
	});

	test('draft7: RateLimit: limit=, remaining=, reset= with RateLimit-Policy', () => {
		assert.deepEqual(
			readBudget(
				{ RateLimit: 'limit=30, remaining=29, reset=10', 'RateLimit-Policy': '30;w=10' },
				NOW,
			),
			{ ...budget, dialect: 'draft7' },
		);
		// The limit from the policy when the list leaves it out.
		assert.deepEqual(
			readBudget({ RateLimit: 'remaining=29, reset=10', 'RateLimit-Policy': '30;w=10' }, NOW),
			{
				...budget,
				dialect: 'draft7',
			},
		);
	});

	test('structured: RateLimit "<policy>";r=;t= with RateLimit-Policy "<policy>";q=;w=', () => {
		assert.deepEqual(
			readBudget(
				{ RateLimit: '"30-in-10sec";r=29;t=10', 'RateLimit-Policy': '"30-in-10sec";q=30;w=10' },
				NOW,
			),
			{ ...budget, dialect: 'structured' },
		);
		// A token name, and t left out: the policy's whole window.
		assert.deepEqual(
			readBudget({ RateLimit: 'default;r=29', 'RateLimit-Policy': 'default;q=30;w=10' }, NOW),
			{
				...budget,
				dialect: 'structured',
			},
		);
	});

	test('structured with several policies: the one with the fewest left governs (ties: the later reset)', () => {
		const headers = {
			RateLimit: '"burst";r=9;t=1, "hour";r=3;t=1800, "day";r=900;t=40000',
			'RateLimit-Policy': '"burst";q=10;w=1, "hour";q=100;w=3600, "day";q=1000;w=86400',
		};
		assert.deepEqual(readBudget(headers, NOW), {
			limit: 100,
			remaining: 3,
			resetSeconds: 1800,
			dialect: 'structured',
		});
		const tie = {
			RateLimit: '"a";r=0;t=2, "b";r=0;t=7',
			'RateLimit-Policy': '"a";q=5;w=2, "b";q=50;w=60',
		};
		assert.deepEqual(readBudget(tie, NOW), {
			limit: 50,
			remaining: 0,
			resetSeconds: 7,
			dialect: 'structured',
		});
	});

	test('x-ratelimit: delta seconds, Unix seconds and Unix milliseconds give the same reset', () => {
		const x = (reset: string, extra: Record<string, string> = {}) =>
			readBudget(
				{
					'X-RateLimit-Limit': '30',
					'X-RateLimit-Remaining': '29',
					'X-RateLimit-Reset': reset,
					...extra,
				},
				NOW,
			);
		assert.deepEqual(x('10'), { ...budget, dialect: 'x-ratelimit' });
		assert.deepEqual(x(String(NOW_S + 10)), { ...budget, dialect: 'x-ratelimit' });
		assert.deepEqual(x(String(NOW + 10_000)), { ...budget, dialect: 'x-ratelimit' });
		// Against the answer's Date, not our clock: a server clock 1 h ahead still means 10 s.
		const serverDate = new Date(NOW + 3_600_000).toUTCString();
		assert.equal(x(String(NOW_S + 3_610), { Date: serverDate }).resetSeconds, 10);
		// The X-Rate-Limit-* spelling.
		assert.deepEqual(
			readBudget(
				{
					'x-rate-limit-limit': '30',
					'x-rate-limit-remaining': '29',
					'x-rate-limit-reset': String(NOW_S + 10),
				},
				NOW,
			),
			{ ...budget, dialect: 'x-ratelimit' },
		);
	});

	test('the dialect is chosen by the headers present, in one reader for the transport', () => {
		const info = readRateLimitHeaders(
			{ RateLimit: 'limit=30, remaining=29, reset=10', 'Retry-After': '4' },
			NOW,
		);
		assert.deepEqual(info, { ...budget, retryAfterSeconds: 4, dialect: 'draft7' });
		assert.deepEqual(
			readBudget({ 'Retry-After': '4', 'Content-Type': 'application/json' }, NOW),
			{},
		);
		// Two dialects at once (a gateway in front of a server): the first readable one.
		assert.equal(
			readBudget(
				{ RateLimit: 'garbage', 'X-RateLimit-Remaining': '5', 'X-RateLimit-Reset': '3' },
				NOW,
			).dialect,
			'x-ratelimit',
		);
	});
});

describe('garbage is ignored, never a crash or a wait of years', () => {
	test('unreadable values in every dialect', () => {
		const garbage: Array<Record<string, unknown>> = [
			{ 'RateLimit-Limit': 'many', 'RateLimit-Remaining': '-1', 'RateLimit-Reset': 'soon' },
			{ RateLimit: 'limit=x, remaining=, reset=1e9' },
			{ RateLimit: '"p";r=abc;t=NaN', 'RateLimit-Policy': '"p";q=;w=' },
			{ RateLimit: '"unterminated;r=1;t=2' },
			{ 'X-RateLimit-Remaining': '1', 'X-RateLimit-Reset': 'Infinity' },
			{ 'X-RateLimit-Remaining': ['', '2'], 'X-RateLimit-Reset': null },
			{ RateLimit: ',,;;==,"",;' },
		];
		for (const headers of garbage) {
			const reading = readBudget(headers, NOW);
			assert.ok(
				reading.resetSeconds === undefined || reading.resetSeconds <= MAX_RESET_SECONDS,
				JSON.stringify(headers),
			);
			assert.equal(
				reading.remaining !== undefined && reading.resetSeconds !== undefined,
				false,
				`read a budget from ${JSON.stringify(headers)}: ${JSON.stringify(reading)}`,
			);
		}
	});

	test('a reset of days, or far in the future, is never waited for; a past one is now', () => {
		assert.equal(resetSecondsOf(MAX_RESET_SECONDS + 1, NOW), undefined);
		assert.equal(resetSecondsOf(NOW_S + 3 * 86_400, NOW), undefined);
		assert.equal(resetSecondsOf(NOW + 3 * 86_400_000, NOW), undefined);
		assert.equal(resetSecondsOf(99_999_999_999_999, NOW), undefined);
		assert.equal(resetSecondsOf(NOW_S - 30, NOW), 0);
		assert.equal(resetSecondsOf(MAX_RESET_SECONDS, NOW), MAX_RESET_SECONDS);
	});

	test('control: the same checks accept a readable budget', () => {
		assert.deepEqual(readBudget({ 'X-RateLimit-Remaining': '1', 'X-RateLimit-Reset': '2' }, NOW), {
			limit: undefined,
			remaining: 1,
			resetSeconds: 2,
			dialect: 'x-ratelimit',
		});
	});
});
