/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * What happens on a 429 (nodes/shared/transport/rateLimited.ts), with fake time: a 429 that says
 * when is a turn, never a retry; the limit is time, Max Rate-Limit Wait for the whole request.
 * Every 429 is this step's: the retry policy (rateLimit.ts decideRetry) never sees one.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { MAX_RETRIES, RESET_MARGIN_SECONDS } from '../../nodes/shared/transport/rateLimit';
import type { AttemptOutcome, RateLimitInfo } from '../../nodes/shared/transport/rateLimit';
import { askedWaitSeconds, onRateLimited } from '../../nodes/shared/transport/rateLimited';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const tooMany = (info: RateLimitInfo, apiCode = 'rate_limited'): AttemptOutcome => ({
	kind: 'status',
	status: 429,
	apiCode,
	info,
});

describe('a 429', () => {
	test('that says when is a turn, however many came before, while the time lasts', () => {
		// Many more 429s than MAX_RETRIES, one second apart: each is a turn until 60 s are used.
		for (let n = 0; n < MAX_RETRIES * 10; n++) {
			const step = onRateLimited(tooMany({ retryAfterSeconds: 1 }), NOW, 60, NOW + n * 1000);
			assert.deepEqual(step, { action: 'turn' }, `429 number ${n + 1}`);
		}
	});

	test('fails on time: a single wait past the cap, or the waiting so far plus the next past it', () => {
		assert.deepEqual(onRateLimited(tooMany({ retryAfterSeconds: 90 }), NOW, 60, NOW), {
			action: 'fail',
			reason: 'waitCap',
			waitSeconds: 90,
			waitedSeconds: 0,
		});
		assert.deepEqual(onRateLimited(tooMany({ retryAfterSeconds: 10 }), NOW, 60, NOW + 55_000), {
			action: 'fail',
			reason: 'waitCap',
			waitSeconds: 10,
			waitedSeconds: 55,
		});
		assert.deepEqual(onRateLimited(tooMany({ retryAfterSeconds: 5 }), NOW, 60, NOW + 55_000), {
			action: 'turn',
		});
	});

	test('a wait of exactly what is left is a turn; a reset past the cap fails with its margin', () => {
		assert.deepEqual(onRateLimited(tooMany({ retryAfterSeconds: 60 }), NOW, 60, NOW), {
			action: 'turn',
		});
		assert.deepEqual(onRateLimited(tooMany({ resetSeconds: 2 }), NOW, 0, NOW), {
			action: 'fail',
			reason: 'waitCap',
			waitSeconds: 2 + RESET_MARGIN_SECONDS,
			waitedSeconds: 0,
		});
	});

	test('the wait asked: Retry-After, else the reset of any dialect plus a margin, else none', () => {
		assert.equal(askedWaitSeconds(tooMany({ retryAfterSeconds: 3, resetSeconds: 9 })), 3);
		assert.equal(askedWaitSeconds(tooMany({ resetSeconds: 9 })), 9 + RESET_MARGIN_SECONDS);
		assert.equal(askedWaitSeconds(tooMany({})), undefined);
	});

	test('that names no wait (a bare 429) is a turn too, never a retry count; the wait checked is the one the pack chose', () => {
		for (let n = 0; n < MAX_RETRIES * 10; n++) {
			assert.deepEqual(onRateLimited(tooMany({}), NOW, 60, NOW + n * 1000, 1), { action: 'turn' });
		}
		// The gate closed for 20 s more after 50 s of waiting: past the 60 s, and the error says
		// the wait was the pack's estimate.
		assert.deepEqual(onRateLimited(tooMany({}), NOW, 60, NOW + 50_000, 20), {
			action: 'fail',
			reason: 'waitCap',
			waitSeconds: 20,
			waitedSeconds: 50,
			estimated: true,
		});
	});

	test('the daily quota fails at once, whatever the cap; other answers are not for this step', () => {
		assert.deepEqual(
			onRateLimited(tooMany({ retryAfterSeconds: 3600 }, 'daily_quota_exceeded'), NOW, 60, NOW),
			{ action: 'fail', reason: 'dailyQuota', waitSeconds: 3600 },
		);
		assert.deepEqual(
			onRateLimited(tooMany({ retryAfterSeconds: 40_000 }, 'daily_quota_exceeded'), NOW, 1e9, NOW),
			{ action: 'fail', reason: 'dailyQuota', waitSeconds: 40_000 },
		);
		assert.equal(
			onRateLimited({ kind: 'status', status: 503, info: { retryAfterSeconds: 1 } }, NOW, 60, NOW),
			undefined,
		);
		assert.equal(onRateLimited({ kind: 'network', code: 'ECONNRESET' }, NOW, 60, NOW), undefined);
	});

	test('of any kind is this step, never left to the retry policy', () => {
		const kinds: AttemptOutcome[] = [
			tooMany({ retryAfterSeconds: 1 }),
			tooMany({ resetSeconds: 1 }),
			tooMany({}),
			{ kind: 'status', status: 429, info: {} },
			tooMany({ retryAfterSeconds: 1 }, 'daily_quota_exceeded'),
			tooMany({ retryAfterSeconds: 600 }),
		];
		for (const outcome of kinds) {
			assert.notEqual(onRateLimited(outcome, NOW, 60, NOW), undefined, JSON.stringify(outcome));
		}
	});
});
