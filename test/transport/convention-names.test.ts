/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The names the node gives the cursor and the page size are the credential's (Custom API
 * Conventions), wherever the node sets or reads them, through real workflows against a sandbox
 * that names them `starting_after` and `per_page`:
 * - Get Many refuses a free query parameter only under the credential's names, so the contract's
 *   `limit` is an ordinary parameter there;
 * - API Request › Send keeps a page size given under the credential's name for its later pages.
 * (The polling trigger's refused position: test/trigger/polling.test.ts.) Each has a control on
 * the default conventions, and each fails on the code that wrote `limit` and `cursor` in the node.
 */
import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test } from '@jest/globals';

import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { sandboxRequests, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { runWorkflow } from '../harness';
import { ERP } from '../erp/setup';
import { control, conventionCredentials, stats } from './helpers';

const ARTICLES = 230;
const NAMES = { cursorParam: 'starting_after', pageSizeParam: 'per_page' };
let sb: SandboxHandle;

beforeAll(async () => {
	sb = await startSandbox({ port: 0, articles: ARTICLES, rateLimit: UNPACED, conventions: NAMES });
});
afterAll(async () => {
	await sb.close();
});
afterEach(async () => {
	await control(sb.url, 'reset', { articles: ARTICLES });
});

const credentials = (conventions?: ICredentialDataDecryptedObject) =>
	conventionCredentials(sb.baseUrl, conventions);

const articleQueries = async () =>
	(await sandboxRequests(sb.url))
		.filter((entry) => entry.method === 'GET' && entry.path === '/v1/articles')
		.map((entry) => entry.query);

const runErp = (
	parameters: INodeParameters,
	conventions?: ICredentialDataDecryptedObject,
	testCredentials = credentials(conventions),
	input?: IDataObject[],
) =>
	runWorkflow({
		nodes: [{ type: ERP, name: 'ERP', parameters }],
		credentials: testCredentials,
		input,
	});

/** Credentials that count how often n8n decrypts them for the node (`this.getCredentials`). */
const countingCredentials = (conventions: ICredentialDataDecryptedObject) => {
	const counted = credentials(conventions);
	const decrypt = counted.getDecrypted.bind(counted);
	const reads = { count: 0 };
	counted.getDecrypted = async (...args: Parameters<typeof decrypt>) => {
		reads.count++;
		return await decrypt(...args);
	};
	return { counted, reads };
};

describe("Get Many's free query parameters", () => {
	const getMany = (name: string, conventions?: ICredentialDataDecryptedObject) =>
		runErp(
			{
				resource: 'article',
				operation: 'getAll',
				limit: 3,
				options: { queryParameters: { parameter: [{ name, value: '5' }] } },
			},
			conventions,
		);

	test('limit is an ordinary parameter when the credential names the page size per_page', async () => {
		const result = await getMany('limit', NAMES);
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP').length, 3);
		assert.deepEqual(await articleQueries(), [{ limit: '5', per_page: '3' }]);
	});

	test('control: on the default conventions limit is the page size, refused before anything is sent', async () => {
		const before = (await stats(sb.url)).requests;
		const result = await getMany('limit');
		assert.equal(result.success, false);
		assert.equal(
			result.error?.message,
			`Invalid value for "Query Parameters": "limit" is set by the node: the credential's API conventions use it for the page size (use Return All / Limit and Options › Page Size instead) [item 0]`,
		);
		assert.equal((await stats(sb.url)).requests, before, 'nothing reached the sandbox');
	});

	test('a refused name with an article filter by reference: refused before the lookup is sent', async () => {
		const before = (await stats(sb.url)).requests;
		const result = await runErp(
			{
				resource: 'stockMovement',
				operation: 'getAll',
				limit: 3,
				filters: { articleId: { __rl: true, mode: 'reference', value: 'ANY-REF' } },
				options: { queryParameters: { parameter: [{ name: 'per_page', value: '5' }] } },
			},
			NAMES,
		);
		assert.equal(result.success, false);
		assert.equal(result.error?.name, 'NodeOperationError', result.error?.message);
		assert.equal(
			result.error?.message,
			`Invalid value for "Query Parameters": "per_page" is set by the node: the credential's API conventions use it for the page size (use Return All / Limit and Options › Page Size instead) [item 0]`,
		);
		assert.equal((await stats(sb.url)).requests, before, 'nothing reached the sandbox');
	});

	test('the credential is read once per item; control: an article filter by reference reads it again for the lookup', async () => {
		const items = [{}, {}, {}];
		const plain = countingCredentials(NAMES);
		const result = await runErp(
			{
				resource: 'article',
				operation: 'getAll',
				limit: 3,
				options: { queryParameters: { parameter: [{ name: 'limit', value: '5' }] } },
			},
			undefined,
			plain.counted,
			items,
		);
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP').length, 9);
		assert.equal(plain.reads.count, items.length, 'credential reads for 3 items');

		const [article] = result.output('ERP');
		const lookup = countingCredentials(NAMES);
		const filtered = await runErp(
			{
				resource: 'stockMovement',
				operation: 'getAll',
				limit: 3,
				filters: { articleId: { __rl: true, mode: 'reference', value: String(article.reference) } },
			},
			undefined,
			lookup.counted,
			items,
		);
		assert.equal(filtered.success, true, filtered.error?.message);
		assert.equal(lookup.reads.count, 2 * items.length, 'the lookup and the list, per item');
	});
});

describe("API Request › Send: a page size given under the credential's name", () => {
	const send = (name: string, conventions?: ICredentialDataDecryptedObject) =>
		runErp(
			{
				resource: 'apiRequest',
				operation: 'send',
				method: 'GET',
				path: '/articles',
				queryParameters: { parameter: [{ name, value: '50' }] },
				output: 'items',
				returnAll: true,
			},
			conventions,
		);

	test('per_page=50 is kept for every later page', async () => {
		const result = await send('per_page', NAMES);
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP').length, ARTICLES);
		const sizes = (await articleQueries()).map((query) => query.per_page);
		assert.deepEqual(sizes, Array<string>(Math.ceil(ARTICLES / 50)).fill('50'));
	});

	test('control: limit=50 on the default conventions is kept the same way (a server that names it limit)', async () => {
		await control(sb.url, 'config', {
			conventions: { cursorParam: 'cursor', pageSizeParam: 'limit' },
		});
		const result = await send('limit');
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP').length, ARTICLES);
		const sizes = (await articleQueries()).map((query) => query.limit);
		assert.deepEqual(sizes, Array<string>(Math.ceil(ARTICLES / 50)).fill('50'));
	});
});
