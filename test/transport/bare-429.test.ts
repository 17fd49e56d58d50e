/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * A bare 429 through real workflows (issue 30): the sandbox answers 429 with no header at all.
 * The transport waits it out as a rate limit (never a retry count), and past Max Rate-Limit Wait
 * it fails on time, saying the API named no wait. Counts come from the sandbox, not the clock.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from '../harness/sandbox';
import { apiKeyCredentials, callPastWindow, control, newKey, runCall, stats } from './helpers';

const sb = useSandbox({ reset: 'afterEach' });

describe('a bare 429', () => {
	test('is waited out as a rate limit: 8 requests at 2 per 2 s, all answered, none failed', async () => {
		const key = await newKey(sb.url, ['articles:read']);
		await control(sb.url, 'config', {
			rateLimit: { limit: 2, windowSeconds: 2 },
			rateLimitHeaders: 'bare',
		});
		const result = await runCall(
			apiKeyCredentials(sb.baseUrl, key),
			{ path: '/articles', qs: '{"limit": 1}' },
			{ input: Array.from({ length: 8 }, () => ({})) },
		);
		assert.equal(result.success, true, result.error?.message);
		const seen = await stats(sb.url);
		assert.equal(seen.byStatus['200'], 8);
		// More 429s than the 5 retries a count would allow would still not fail it; it took a few.
		process.stdout.write(`# bare 429, 2 per 2 s: ${seen.byStatus['429'] ?? 0} answered 429\n`);
	}, 60_000);

	test('past Max Rate-Limit Wait it fails on time, saying the API named no wait, not on a retry count', async () => {
		const { result } = await callPastWindow(sb, { rateLimitHeaders: 'bare' });
		assert.equal(result.success, false);
		assert.match(
			result.error?.message ?? '',
			/The ERP API rate limit is still exceeded after waiting \d+ s; it names no wait, and the key is slowed down until \d+ s from now, past the Max Rate-Limit Wait of 5 s/,
		);
		assert.doesNotMatch(
			String((result.error as IDataObject | undefined)?.description),
			/Gave up after/,
		);
		assert.equal((await stats(sb.url)).byStatus['200'], 1, 'only the priming request');
	}, 60_000);
});
