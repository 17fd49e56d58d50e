/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Tolerant page size (issue 18). The spec leaves the maximum page size open; the nodes ask for 100.
 * Against a spec-legal server that allows 50 at most (the sandbox with `maxPageSize: 50`), a list's
 * first page refused because of its size is read again once with the maximum the server states
 * (else without `limit`), and later lists with the same credential start there. Every request is
 * checked in the sandbox's request log (`GET /_sandbox/requests`: query and status of each).
 * Also: the Page Size option, a refusal that is not about the limit (never retried), the searchable
 * lists, the category list and Find or Create against the same server, and the recogniser itself.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from '@jest/globals';

import type { IDataObject, INodeCredentials, INodeParameters } from 'n8n-workflow';

import { limitRefusal } from '../../nodes/shared/transport/pageSize';
import type { RefusalFacts } from '../../nodes/shared/transport/pageSize';
import { call, DEMO_KEYS, sandboxRequests, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import type { RunWorkflowResult, TestCredentials } from '../harness';
import { runWorkflow } from '../harness';
import { startRecordingServer } from '../harness/fixtures';
import { startErpTestEnv } from '../erp/setup';
import type { ErpTestEnv } from '../erp/setup';
import { apiKeyCredentials, control, newKey, pages } from './helpers';

const ERP = 'n8n-nodes-erp.erp';
const ARTICLES = 180; // pages of 50: 50, 50, 50, 30
const PAGES_OF_50 = Array<string>(4).fill('50:200');

let credentialCounter = 0;
/** A credential of its own (the node's credential id): nothing remembered for it yet. */
function freshCredential(): INodeCredentials {
	credentialCounter += 1;
	return {
		erpApi: { id: `page-size-${credentialCounter}`, name: `Page size ${credentialCounter}` },
	};
}

let workflowCounter = 0;
async function runErp(
	credentials: TestCredentials,
	credential: INodeCredentials,
	parameters: INodeParameters,
): Promise<RunWorkflowResult> {
	workflowCounter += 1;
	return await runWorkflow({
		nodes: [{ name: 'ERP', type: ERP, parameters, credentials: credential }],
		credentials,
		workflowId: `page-size-${workflowCounter}`,
	});
}

const articleList = (parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'article',
	operation: 'getAll',
	returnAll: true,
	...parameters,
});

const ids = (result: RunWorkflowResult): string[] =>
	result.output('ERP').map((item) => String(item.id));

describe('Get Many against a server that allows 50 items per page', () => {
	let sb: SandboxHandle;
	let credentials: TestCredentials;
	let expected: string[];

	beforeAll(async () => {
		sb = await startSandbox({ port: 0, articles: ARTICLES, maxPageSize: 50, rateLimit: UNPACED });
		credentials = apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full);
		expected = [];
		let cursor: string | null = null;
		do {
			const page = await call(
				sb.baseUrl,
				'GET',
				`/articles?limit=50${cursor ? `&cursor=${cursor}` : ''}`,
			);
			assert.equal(page.status, 200);
			expected.push(...(page.json.data as IDataObject[]).map((a) => String(a.id)));
			cursor = page.json.pagination.next_cursor as string | null;
		} while (cursor);
		assert.equal(expected.length, ARTICLES);
	});
	afterAll(async () => {
		await sb.close();
	});
	beforeEach(async () => {
		await control(sb.url, 'reset', { articles: ARTICLES }); // same seed; log and stats cleared
	});

	/** The run succeeded with `wanted` (in order), and the server saw exactly these `limit:status`. */
	async function assertListed(
		result: RunWorkflowResult,
		wanted: string[],
		requests: string[],
	): Promise<void> {
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(ids(result), wanted);
		assert.equal(new Set(ids(result)).size, wanted.length, 'no duplicates');
		assert.deepEqual(pages(await sandboxRequests(sb.url)), requests);
	}

	test('the server refuses limit=100 with the contract body, naming the maximum', async () => {
		const refused = await call(sb.baseUrl, 'GET', '/articles?limit=100');
		assert.equal(refused.status, 400);
		assert.deepEqual(refused.json, {
			error: {
				code: 'invalid_query',
				message: 'limit must be between 1 and 50',
				details: [{ field: 'limit', message: 'limit must be between 1 and 50' }],
			},
		});
		assert.equal((await call(sb.baseUrl, 'GET', '/articles?limit=50')).status, 200);
		assert.deepEqual(pages(await sandboxRequests(sb.url)), ['100:400', '50:200']);
	});

	test('Return All gets every article exactly once; one refused first page, then pages of 50; the next list starts at 50', async () => {
		const credential = freshCredential();
		const first = await runErp(credentials, credential, articleList());
		await assertListed(first, expected, ['100:400', ...PAGES_OF_50]);

		await control(sb.url, 'reset', { articles: ARTICLES });
		// Remembered for the credential: no refused request.
		await assertListed(await runErp(credentials, credential, articleList()), expected, PAGES_OF_50);
	});

	test('another credential is not affected: its first list is refused once too', async () => {
		const known = freshCredential();
		assert.equal((await runErp(credentials, known, articleList())).success, true);
		await control(sb.url, 'reset', { articles: ARTICLES });

		// Another credential (another id and key) against the same server learns on its own.
		const other = apiKeyCredentials(sb.baseUrl, await newKey(sb.url, ['articles:read']));
		const result = await runErp(other, freshCredential(), articleList());
		await assertListed(result, expected, ['100:400', ...PAGES_OF_50]);
	});

	test('Limit across pages gets exactly the first items, asking only for what is left', async () => {
		const result = await runErp(
			credentials,
			freshCredential(),
			articleList({ returnAll: false, limit: 120 }),
		);
		await assertListed(result, expected.slice(0, 120), ['100:400', '50:200', '50:200', '20:200']);
	});

	test('Page Size is sent as limit, and one the server accepts is never refused', async () => {
		const result = await runErp(
			credentials,
			freshCredential(),
			articleList({ options: { pageSize: 30 } }),
		);
		await assertListed(result, expected, Array<string>(6).fill('30:200'));
	});

	test('a Page Size the server refuses falls back once to the stated maximum', async () => {
		const result = await runErp(
			credentials,
			freshCredential(),
			articleList({ options: { pageSize: 80 } }),
		);
		await assertListed(result, expected, ['80:400', ...PAGES_OF_50]);
	});

	test('a bad Page Size fails naming it, before any request', async () => {
		for (const pageSize of [0, 101, 12.5, 'ten']) {
			const result = await runErp(
				credentials,
				freshCredential(),
				articleList({ options: { pageSize } }),
			);
			assert.equal(result.success, false, `Page Size ${String(pageSize)} should be refused`);
			assert.equal(result.error?.name, 'NodeOperationError');
			assert.match(result.error?.message ?? '', /^Invalid value for "Page Size": .* \[item 0\]$/);
		}
		assert.deepEqual(await sandboxRequests(sb.url), [], 'nothing reached the server');
	});

	test('control: a 400 about another parameter is not retried', async () => {
		const result = await runErp(credentials, freshCredential(), {
			resource: 'stockMovement',
			operation: 'getAll',
			returnAll: true,
			options: {
				pageSize: 50,
				queryParameters: { parameter: [{ name: 'date_debut', value: 'yesterday' }] },
			},
		});
		assert.equal(result.success, false);
		assert.match(result.error?.message ?? '', /date_debut/);
		assert.deepEqual(pages(await sandboxRequests(sb.url), '/v1/stock/mouvements'), ['50:400']);
	});
});

describe('the fallback, against crafted servers', () => {
	const items = (from: number, to: number) =>
		Array.from({ length: to - from }, (_, i) => ({ id: `i${from + i}` }));

	test('a server that states no maximum: the list is read again without limit, and that is remembered', async () => {
		// Any limit is refused (no maximum stated); without one, pages of 20 over 45 items.
		const server = await startRecordingServer((req) => {
			const url = new URL(req.url, 'http://x');
			if (url.searchParams.has('limit')) {
				return {
					status: 400,
					body: {
						error: {
							code: 'invalid_query',
							message: 'Invalid query parameter limit',
							details: [{ field: 'limit', message: 'page too large' }],
						},
					},
				};
			}
			const start = Number(url.searchParams.get('cursor') ?? 0);
			const end = Math.min(start + 20, 45);
			return {
				status: 200,
				body: {
					data: items(start, end),
					pagination: { total: 45, next_cursor: end < 45 ? String(end) : null },
				},
			};
		});
		try {
			const credentials = apiKeyCredentials(`${server.url}/v1`, DEMO_KEYS.full);
			const credential = freshCredential();
			const first = await runErp(credentials, credential, articleList());
			assert.equal(first.success, true, first.error?.message);
			assert.deepEqual(
				ids(first),
				items(0, 45).map((i) => i.id),
			);
			const second = await runErp(credentials, credential, articleList());
			assert.equal(second.success, true, second.error?.message);
			assert.deepEqual(
				ids(second),
				items(0, 45).map((i) => i.id),
			);
			assert.deepEqual(
				server.requests.map((r) => r.url),
				[
					'/v1/articles?limit=100',
					'/v1/articles',
					'/v1/articles?cursor=20',
					'/v1/articles?cursor=40',
					'/v1/articles',
					'/v1/articles?cursor=20',
					'/v1/articles?cursor=40',
				],
			);
		} finally {
			await server.close();
		}
	});

	test('never more than one fallback: a refused smaller page fails with the server error', async () => {
		const server = await startRecordingServer(() => ({
			status: 400,
			body: { error: { code: 'invalid_query', message: 'limit must be between 1 and 50' } },
		}));
		try {
			const credentials = apiKeyCredentials(`${server.url}/v1`, DEMO_KEYS.full);
			const result = await runErp(credentials, freshCredential(), articleList());
			assert.equal(result.success, false);
			assert.match(result.error?.message ?? '', /limit must be between 1 and 50/);
			assert.deepEqual(
				server.requests.map((r) => r.url),
				['/v1/articles?limit=100', '/v1/articles?limit=50'],
			);
		} finally {
			await server.close();
		}
	});
});

describe('searchable lists, categories and Find or Create against a server that allows 50 per page', () => {
	let env: ErpTestEnv;
	beforeAll(async () => {
		env = await startErpTestEnv();
		await control(env.sandbox.url, 'config', { maxPageSize: 50 });
	});
	afterAll(async () => {
		await env.close();
	});

	test('invoice search (pages of 100 when filtering) falls back and finds the invoice', async () => {
		const { results } = await env.listSearch('searchInvoices', 'cmd-1002');
		assert.equal(results.length, 1);
		const { body } = await env.api('GET', '/factures?reference_externe=CMD-1002');
		assert.equal(results[0].value, (body.data as IDataObject[])[0].id);
		const log = await sandboxRequests(env.sandbox.url);
		assert.deepEqual(pages(log, '/v1/factures').slice(0, 2), ['100:400', '50:200']);
	});

	test('article search and its next page work with pages of 50', async () => {
		const first = await env.listSearch('searchArticles');
		assert.equal(first.results.length, 50);
		const second = await env.listSearch('searchArticles', undefined, String(first.paginationToken));
		assert.equal(second.results.length, 50);
		assert.equal(second.results[0].value, 'art_00000051');
	});

	test('the category list reads every article it scans', async () => {
		const before = (await sandboxRequests(env.sandbox.url)).length;
		const options = await env.loadOptions('getCategories');
		assert.equal(options.length, 7, 'the seven seeded categories');
		const log = (await sandboxRequests(env.sandbox.url)).slice(before);
		// The credential already knows the server's maximum: no refused request.
		assert.deepEqual(pages(log), Array(5).fill('50:200'));
	});

	test('Find or Create finds an existing article and client', async () => {
		const article = await env.run({
			resource: 'article',
			operation: 'findOrCreate',
			reference: 'REF-000120',
			designation: 'unused',
			prix_ht: 100,
			tva: 2000,
		});
		assert.equal(article.success, true, article.error?.message);
		assert.equal(article.output('ERP')[0]._action, 'found');
		assert.equal(article.output('ERP')[0].id, 'art_00000120');

		const { body } = await env.api('GET', '/clients?limit=1');
		const client = (body.data as IDataObject[])[0];
		const found = await env.run({
			resource: 'client',
			operation: 'findOrCreate',
			email: String(client.email).toUpperCase(),
			nom: 'unused',
		});
		assert.equal(found.success, true, found.error?.message);
		assert.equal(found.output('ERP')[0]._action, 'found');
		assert.equal(found.output('ERP')[0].id, client.id);
		const refused = (await sandboxRequests(env.sandbox.url)).filter((r) => r.status === 400);
		assert.equal(refused.length, 1, 'only the very first list of this credential was refused');
	});
});

describe('recognising a refusal of the page size', () => {
	const facts = (httpCode: number, apiMessage?: string, details?: RefusalFacts['details']) => ({
		httpCode,
		apiMessage,
		details,
	});

	test('a 400 or 422 about limit, with the maximum when one is stated below what was sent', () => {
		const cases: Array<[RefusalFacts, { maximum?: number }]> = [
			[facts(400, 'limit must be between 1 and 50'), { maximum: 50 }],
			[
				facts(400, 'Invalid query parameter limit', [
					{ field: 'limit', message: 'limit must be between 1 and 50' },
				]),
				{ maximum: 50 },
			],
			[
				facts(422, 'Validation failed', [{ field: 'limit', message: 'must be at most 25' }]),
				{ maximum: 25 },
			],
			[facts(400, "'limit' must be <= 40"), { maximum: 40 }],
			[facts(400, 'limit: maximum is 30'), { maximum: 30 }],
			[facts(400, 'Invalid value for limit (max 60)'), { maximum: 60 }],
			[facts(400, 'limit must be an integer from 1 to 100'), {}],
			[facts(400, 'Invalid query parameter limit'), {}],
			[facts(400, 'Bad request', [{ field: 'query.limit', message: 'too large' }]), {}],
		];
		for (const [given, expected] of cases) {
			assert.deepEqual(limitRefusal(given, 100), expected, JSON.stringify(given));
		}
	});

	test('anything else is not a refusal of the page size', () => {
		const cases: RefusalFacts[] = [
			facts(400, 'Invalid query parameter statut', [
				{ field: 'statut', message: 'Expected one of emise' },
			]),
			facts(400, 'The date range exceeds the limit of 1 year'),
			facts(400, 'Unknown or expired cursor', [
				{ field: 'cursor', message: 'Unknown or expired cursor' },
			]),
			facts(400, 'credit_limit must be positive'),
			facts(429, 'limit must be between 1 and 50'),
			facts(500, 'limit must be between 1 and 50'),
			facts(404, 'Article art_1 was not found'),
		];
		for (const given of cases) {
			assert.equal(limitRefusal(given, 100), undefined, JSON.stringify(given));
		}
		assert.equal(limitRefusal(undefined, 100), undefined);
	});
});
