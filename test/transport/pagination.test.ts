/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Pagination through real workflows: Return All and Limit against the sandbox (exact counts, no
 * duplicates, under rate limits and injected faults), and the cursor stop rules against a
 * loopback server that answers crafted pages (the sandbox never repeats a cursor).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { startRecordingServer } from '../harness/fixtures';
import { api, apiKeyCredentials, control, newKey, runCall, stats } from './helpers';

async function allIdsDirectly(baseUrl: string): Promise<{ total: number; ids: string[] }> {
	const ids: string[] = [];
	let cursor: string | null = null;
	let total = 0;
	do {
		const page = await api(
			baseUrl,
			DEMO_KEYS.full,
			'GET',
			`/articles?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
		);
		ids.push(...(page.json.data as IDataObject[]).map((a) => a.id as string));
		const pagination = page.json.pagination as IDataObject;
		total = pagination.total as number;
		cursor = pagination.next_cursor as string | null;
	} while (cursor);
	return { total, ids };
}

describe('Return All and Limit against the sandbox', () => {
	let sb: SandboxHandle;
	beforeAll(async () => {
		sb = await startSandbox({ port: 0, articles: 3000 });
	});
	afterAll(async () => {
		await sb.close();
	});

	test('done when: every article under 10 requests / 2 s with 10 % injected 503s on GET', async () => {
		const expected = await allIdsDirectly(sb.baseUrl);
		await control(sb.url, 'reset', { articles: 3000 }); // same seed: same articles, counters at 0
		const key = await newKey(sb.url, ['articles:read']);
		await control(sb.url, 'config', { rateLimit: { limit: 10, windowSeconds: 2 } });
		await control(sb.url, 'faults', {
			seed: 7,
			faults: [{ kind: 'status', status: 503, probability: 0.1, methods: ['GET'] }],
		});

		const result = await runCall(apiKeyCredentials(sb.baseUrl, key), {
			mode: 'getMany',
			path: '/articles',
			returnAll: true,
		});
		assert.equal(result.success, true, result.error?.message);
		const ids = result.output('Call').map((a) => a.id as string);
		assert.equal(ids.length, expected.total);
		assert.equal(new Set(ids).size, ids.length, 'no duplicates');
		assert.deepEqual(ids, expected.ids);

		const seen = await stats(sb.url);
		assert.ok((seen.faults.status ?? 0) >= 1, '503s were injected');
		assert.equal(seen.byStatus['503'], seen.faults.status);
		assert.equal(seen.byStatus['200'], expected.total / 100, 'one successful request per page');
		assert.ok(seen.requests > 30, `spans four windows or more (${seen.requests} requests)`);
		assert.equal(seen.byStatus['429'] ?? 0, 0, 'paced under the limit');
	});

	test('Limit stops at exactly that many items, across pages', async () => {
		await control(sb.url, 'reset', { articles: 3000 });
		const expected = await allIdsDirectly(sb.baseUrl);
		const key = await newKey(sb.url, ['articles:read']);
		const before = (await stats(sb.url)).byPath['GET /v1/articles'] ?? 0;
		const result = await runCall(apiKeyCredentials(sb.baseUrl, key), {
			mode: 'getMany',
			path: '/articles',
			returnAll: false,
			limit: 150,
		});
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(
			result.output('Call').map((a) => a.id),
			expected.ids.slice(0, 150),
		);
		assert.equal(
			(await stats(sb.url)).byPath['GET /v1/articles'] - before,
			2,
			'two pages: 100 then 50',
		);
	});
});

describe('cursor rules', () => {
	type Page = { data: IDataObject[]; pagination?: IDataObject };
	async function serve(pages: Record<string, Page>) {
		return await startRecordingServer((req) => {
			const url = new URL(req.url, 'http://x');
			const page = pages[url.searchParams.get('cursor') ?? 'first'];
			return page
				? { status: 200, body: page }
				: { status: 404, body: { error: { code: 'not_found', message: 'no page' } } };
		});
	}
	const items = (prefix: string, n: number) =>
		Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}` }));

	test('a repeated cursor fails loudly instead of looping', async () => {
		const server = await serve({
			first: { data: items('a', 2), pagination: { total: 6, next_cursor: 'c1' } },
			c1: { data: items('b', 2), pagination: { total: 6, next_cursor: 'c2' } },
			c2: { data: items('c', 2), pagination: { total: 6, next_cursor: 'c1' } },
		});
		try {
			const result = await runCall(apiKeyCredentials(`${server.url}/v1`, DEMO_KEYS.full), {
				mode: 'getMany',
				path: '/articles',
				returnAll: true,
			});
			assert.equal(result.success, false);
			assert.match(
				result.error?.message ?? '',
				/returned the same page cursor twice while listing \/articles/,
			);
			assert.equal(server.requests.length, 3);
		} finally {
			await server.close();
		}
	});

	test('stops on a null, empty or missing cursor, and sends limit and cursor', async () => {
		for (const last of [
			{ total: 4, next_cursor: null },
			{ total: 4, next_cursor: '' },
			{ total: 4 },
			undefined,
		]) {
			const server = await serve({
				first: { data: items('a', 2), pagination: { total: 4, next_cursor: 'n1' } },
				n1: { data: items('b', 2), pagination: last },
			});
			try {
				const result = await runCall(apiKeyCredentials(`${server.url}/v1`, DEMO_KEYS.full), {
					mode: 'getMany',
					path: '/articles',
					qs: '{"q": "vis"}',
					returnAll: true,
				});
				assert.equal(result.success, true, result.error?.message);
				assert.deepEqual(
					result.output('Call').map((a) => a.id),
					['a0', 'a1', 'b0', 'b1'],
				);
				assert.deepEqual(
					server.requests.map((r) => r.url),
					['/v1/articles?q=vis&limit=100', '/v1/articles?q=vis&limit=100&cursor=n1'],
				);
				assert.equal(server.requests[0].headers.authorization, `Bearer ${DEMO_KEYS.full}`);
				assert.equal(server.requests[0].headers.accept, 'application/json');
			} finally {
				await server.close();
			}
		}
	});

	test('Limit asks only for what is left, and an answer without a data array is an error', async () => {
		const server = await serve({
			first: { data: items('a', 100), pagination: { total: 300, next_cursor: 'n1' } },
			n1: { data: items('b', 30), pagination: { total: 300, next_cursor: 'n2' } },
			n2: { oops: true } as unknown as Page,
		});
		try {
			const limited = await runCall(apiKeyCredentials(`${server.url}/v1`, DEMO_KEYS.full), {
				mode: 'getMany',
				path: '/articles',
				returnAll: false,
				limit: 130,
			});
			assert.equal(limited.output('Call').length, 130);
			assert.deepEqual(
				server.requests.map((r) => r.url),
				['/v1/articles?limit=100', '/v1/articles?limit=30&cursor=n1'],
			);
			const broken = await runCall(apiKeyCredentials(`${server.url}/v1`, DEMO_KEYS.full), {
				mode: 'getMany',
				path: '/articles',
				returnAll: true,
			});
			assert.equal(broken.success, false);
			assert.match(broken.error?.message ?? '', /not a list \(no "data" array\)/);
		} finally {
			await server.close();
		}
	});
});
