/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The sandbox's rate-limit header dialects (option `rateLimitHeaders`): each answer reports the
// window in the configured dialect, read back by the transport's one reader; `none` sends only
// Retry-After, on the 429; `bare` sends nothing, not even that.
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import { readRateLimitHeaders } from '../../nodes/shared/transport/rateHeaders';
import { RATE_LIMIT_HEADER_DIALECTS, control } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';

const sandbox = useSandbox({ reset: 'beforeEach' });

const rateLimitNames = (headers: Record<string, unknown>) =>
	Object.keys(headers)
		.filter((name) => /ratelimit|rate-limit|retry-after/i.test(name))
		.sort();

describe('rate-limit header dialects', () => {
	for (const dialect of RATE_LIMIT_HEADER_DIALECTS) {
		const refusal = dialect === 'bare' ? 'a bare 429' : 'a 429 with Retry-After';
		it(`${dialect}: the window as the transport reads it, then ${refusal}`, async () => {
			const config = await control(sandbox.url, 'config', {
				rateLimit: { limit: 2, windowSeconds: 30 },
				rateLimitHeaders: dialect,
			});
			assert.equal(config.status, 200, config.text);
			const answers = [
				await sandbox.api('GET', '/articles?limit=1'),
				await sandbox.api('GET', '/articles?limit=1'),
				await sandbox.api('GET', '/articles?limit=1'),
			];
			assert.deepEqual(
				answers.map((a) => a.status),
				[200, 200, 429],
			);
			const [first, , refused] = answers.map((a) => readRateLimitHeaders(a.headers, Date.now()));
			if (dialect === 'bare') {
				// A bare 429: no header at all, not even Retry-After.
				assert.deepEqual(rateLimitNames(answers[0].headers), []);
				assert.deepEqual(rateLimitNames(answers[2].headers), []);
				assert.deepEqual(refused, { ...first, retryAfterSeconds: undefined });
				return;
			}
			if (dialect === 'none') {
				assert.deepEqual(rateLimitNames(answers[0].headers), []);
				assert.deepEqual(rateLimitNames(answers[2].headers), ['retry-after']);
				assert.equal(first.dialect, undefined);
			} else {
				assert.equal(first.dialect, dialect);
				assert.equal(first.limit, 2);
				assert.equal(first.remaining, 1);
				// Whole seconds; the Unix-time reset is measured against the answer's Date (whole seconds too).
				assert.ok(
					first.resetSeconds! >= 29 && first.resetSeconds! <= 31,
					String(first.resetSeconds),
				);
				assert.equal(refused.remaining, 0);
			}
			assert.ok(refused.retryAfterSeconds! >= 29 && refused.retryAfterSeconds! <= 30);
		});
	}

	it('control: an unknown dialect is refused by the control API', async () => {
		const answer = await control(sandbox.url, 'config', { rateLimitHeaders: 'x-custom' });
		assert.equal(answer.status, 422, answer.text);
		assert.match(answer.text, /rateLimitHeaders/);
	});
});
