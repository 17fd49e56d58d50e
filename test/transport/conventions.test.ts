/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Custom API Conventions for lists (issue 25), through real workflows against the sandbox playing
 * each variant: the cursor and page size under other names, the items and the next cursor
 * elsewhere in the answer, a page size refused under another name, the API Request operation's
 * lists, and the checks of each setting before anything is sent. Every variant has a control: the
 * same run on the default settings, which must fail (or come back short) against it.
 */
import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test } from '@jest/globals';

import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { DEMO_KEYS, sandboxRequests, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxConventions, SandboxHandle } from '../../sandbox';
import { ErpApi } from '../../credentials/ErpApi.credentials';
import { ErpOAuth2Api } from '../../credentials/ErpOAuth2Api.credentials';
import { apiConventionProperties } from '../../nodes/shared/credentialFields';
import { limitRefusal } from '../../nodes/shared/transport/pageSize';
import { runWorkflow, TestCredentials } from '../harness';
import { ERP } from '../erp/setup';
import { control, conventionCredentials, runCall, stats } from './helpers';

const ARTICLES = 450;
let sb: SandboxHandle;
let expectedIds: string[];

beforeAll(async () => {
	sb = await startSandbox({ port: 0, articles: ARTICLES, rateLimit: UNPACED });
	// Read on the contract's conventions, before any variant is played.
	const ids: string[] = [];
	let cursor: string | null = null;
	do {
		const answer = await fetch(
			`${sb.baseUrl}/articles?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
			{ headers: { authorization: `Bearer ${DEMO_KEYS.full}` } },
		);
		const page = (await answer.json()) as IDataObject;
		ids.push(...(page.data as IDataObject[]).map((a) => a.id as string));
		cursor = (page.pagination as IDataObject).next_cursor as string | null;
	} while (cursor);
	expectedIds = ids;
	assert.equal(expectedIds.length, ARTICLES);
	await control(sb.url, 'reset', { articles: ARTICLES }); // an empty request log
});
afterAll(async () => {
	await sb.close();
});
afterEach(async () => {
	await control(sb.url, 'reset', { articles: ARTICLES });
});

/** The sandbox plays `variant` from now until the test's reset. */
const play = (variant: Partial<SandboxConventions>) =>
	control(sb.url, 'config', { conventions: variant });

const credentials = (conventions?: ICredentialDataDecryptedObject) =>
	conventionCredentials(sb.baseUrl, conventions);

const returnAll = (conventions?: ICredentialDataDecryptedObject) =>
	runCall(credentials(conventions), { mode: 'getMany', path: '/articles', returnAll: true });

const articleQueries = async () =>
	(await sandboxRequests(sb.url))
		.filter((entry) => entry.method === 'GET' && entry.path === '/v1/articles')
		.map((entry) => entry.query);

describe('the cursor and the page size under other names', () => {
	test('Return All reads every article once with starting_after and per_page', async () => {
		await play({ cursorParam: 'starting_after', pageSizeParam: 'per_page' });
		const result = await returnAll({ cursorParam: 'starting_after', pageSizeParam: 'per_page' });
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(
			result.output('Call').map((a) => a.id),
			expectedIds,
		);
		const queries = await articleQueries();
		assert.equal(queries.length, 5, 'pages of 100');
		assert.deepEqual(queries[0], { per_page: '100' });
		assert.deepEqual(queries[1], { per_page: '100', starting_after: expectedIds[99] });
	});

	test('control: the default names against that server stop on a repeated cursor', async () => {
		await play({ cursorParam: 'starting_after', pageSizeParam: 'per_page' });
		const result = await returnAll();
		assert.equal(result.success, false);
		assert.match(result.error?.message ?? '', /returned the same page cursor twice/);
		assert.match(
			String((result.error as { description?: string }).description),
			/ignored the query parameter "cursor".*Custom API Conventions/,
		);
	});
});

describe('the items and the next cursor elsewhere in the answer', () => {
	test('Return All reads every article from items and meta.next', async () => {
		await play({ itemsPath: 'items', nextCursorPath: 'meta.next' });
		const result = await returnAll({ itemsPath: 'items', nextCursorPath: 'meta.next' });
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(
			result.output('Call').map((a) => a.id),
			expectedIds,
		);
	});

	test('control: the default items path finds no list', async () => {
		await play({ itemsPath: 'items', nextCursorPath: 'meta.next' });
		const result = await returnAll();
		assert.equal(result.success, false);
		assert.match(result.error?.message ?? '', /not a list \(no "data" array\)/);
	});

	test('the next cursor alone elsewhere: read with its path; control: the default stops after the first page', async () => {
		await play({ nextCursorPath: 'meta.next' });
		const custom = await returnAll({ nextCursorPath: 'meta.next' });
		assert.equal(custom.success, true, custom.error?.message);
		assert.equal(custom.output('Call').length, ARTICLES);
		const control = await returnAll();
		assert.equal(control.success, true, control.error?.message);
		assert.equal(control.output('Call').length, 100, 'no next cursor found: one page only');
	});
});

describe('a page size refused under another name', () => {
	test('per_page=100 refused once, then pages of 50 under per_page', async () => {
		await control(sb.url, 'config', { maxPageSize: 50 });
		await play({ cursorParam: 'starting_after', pageSizeParam: 'per_page' });
		const result = await returnAll({ cursorParam: 'starting_after', pageSizeParam: 'per_page' });
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('Call').length, ARTICLES);
		const log = (await sandboxRequests(sb.url)).filter((e) => e.path === '/v1/articles');
		assert.deepEqual(
			log.map((e) => `${e.query.per_page}:${e.status}`),
			['100:400', ...Array<string>(9).fill('50:200')],
		);
	});

	test('control: a refusal about per_page is one only for the page size parameter of that name', () => {
		const message = 'per_page must be between 1 and 50';
		const facts = { httpCode: 400, apiMessage: message, details: [{ field: 'per_page', message }] };
		assert.deepEqual(limitRefusal(facts, 100, 'per_page'), { maximum: 50 });
		assert.equal(limitRefusal(facts, 100), undefined);
	});
});

describe('the API Request operation follows a list by the conventions', () => {
	const send = (conventions?: ICredentialDataDecryptedObject) =>
		runWorkflow({
			nodes: [
				{
					name: 'ERP',
					type: 'n8n-nodes-erp.erp',
					parameters: {
						resource: 'apiRequest',
						operation: 'send',
						method: 'GET',
						path: '/articles',
						output: 'items',
						returnAll: true,
					},
				},
			],
			credentials: credentials(conventions),
		});
	const variant = {
		cursorParam: 'starting_after',
		pageSizeParam: 'per_page',
		itemsPath: 'items',
		nextCursorPath: 'meta.next',
	};

	test('one item per article, every page followed', async () => {
		await play(variant);
		const result = await send(variant);
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(
			result.output('ERP').map((a) => a.id),
			expectedIds,
		);
	});

	test('control: on the default settings the answer is one item, not a list', async () => {
		await play(variant);
		const result = await send();
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP').length, 1);
		assert.ok(Array.isArray(result.output('ERP')[0].items));
	});
});

describe('a free query parameter named like the cursor or the page size of the conventions', () => {
	const getMany = (name: string, conventions?: ICredentialDataDecryptedObject) =>
		runWorkflow({
			nodes: [
				{
					type: ERP,
					name: 'ERP',
					parameters: {
						resource: 'article',
						operation: 'getAll',
						limit: 3,
						options: { queryParameters: { parameter: [{ name, value: '5' }] } },
					},
				},
			],
			credentials: credentials(conventions),
		});

	test('is refused before anything is sent, naming Query Parameters and the setting', async () => {
		await play({ cursorParam: 'starting_after', pageSizeParam: 'per_page' });
		for (const [name, what] of [
			['per_page', 'page size'],
			['starting_after', 'cursor'],
		]) {
			const before = (await stats(sb.url)).requests;
			const result = await getMany(name, {
				cursorParam: 'starting_after',
				pageSizeParam: 'per_page',
			});
			assert.equal(result.success, false);
			const error = result.error as Error;
			assert.equal(error.name, 'NodeOperationError', error.message);
			assert.equal(
				error.message,
				`Invalid value for "Query Parameters": "${name}" is set by the node: the credential's API conventions use it for the ${what} (use Return All / Limit and Options › Page Size instead) [item 0]`,
			);
			assert.equal((await stats(sb.url)).requests, before, 'nothing reached the sandbox');
		}
	});

	test('control: on the default conventions the same name is an ordinary query parameter', async () => {
		const result = await getMany('per_page');
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP').length, 3);
		assert.deepEqual(await articleQueries(), [{ per_page: '5', limit: '3' }]);
	});
});

describe('settings that cannot work are refused before anything is sent', () => {
	const cases: Array<[string, ICredentialDataDecryptedObject, string, RegExp]> = [
		['an empty cursor name', { cursorParam: ' ' }, 'Cursor Query Parameter', /is required/],
		[
			'a cursor name with a space',
			{ cursorParam: 'starting after' },
			'Cursor Query Parameter',
			/not a valid/,
		],
		['one name for both', { pageSizeParam: 'cursor' }, 'Page Size Query Parameter', /must differ/],
		[
			'a path with an empty step',
			{ nextCursorPath: 'meta..next' },
			'Next Cursor Path',
			/names separated by dots/,
		],
		['an empty items path', { itemsPath: '' }, 'Items Path', /names separated by dots/],
		['an unknown scheme', { signatureScheme: 'jwt' }, 'Webhook Signature', /expected one of/],
		[
			'an empty signature header',
			{ signatureScheme: 'bodyHmac', signatureHeader: '' },
			'Signature Header',
			/is required/,
		],
		[
			'a header name with a colon',
			{ signatureScheme: 'bodyHmac', signatureHeader: 'X-Sig:' },
			'Signature Header',
			/not a valid header name/,
		],
		[
			'an unknown algorithm',
			{ signatureScheme: 'bodyHmac', signatureAlgorithm: 'md5' },
			'Signature Algorithm',
			/expected one of sha256, sha512, sha1/,
		],
		[
			'an unknown encoding',
			{ signatureScheme: 'bodyHmac', signatureEncoding: 'base32' },
			'Signature Encoding',
			/expected one of hex, base64/,
		],
		['a bad event path', { eventTypePath: 'event.' }, 'Event Type Path', /names separated by dots/],
		[
			'an identity pair without a path',
			{ eventIdentityPaths: 'stock.bas=mouvement_id, vente.creee' },
			'Event Identity Paths',
			/expected type=path pairs separated by commas.*got "vente.creee"/,
		],
		[
			'an identity given twice',
			{ eventIdentityPaths: 'stock.bas=mouvement_id, stock.bas=id' },
			'Event Identity Paths',
			/stock.bas is given twice/,
		],
	];
	test.each(cases)('%s', async (_what, settings, label, problem) => {
		const before = (await stats(sb.url)).requests;
		const result = await returnAll(settings);
		assert.equal(result.success, false);
		const error = result.error as Error;
		assert.equal(error.name, 'NodeOperationError', error.message);
		assert.ok(
			error.message.startsWith(`Invalid value for "ERP credential › ${label}": `),
			error.message,
		);
		assert.match(error.message, problem);
		assert.equal((await stats(sb.url)).requests, before, 'nothing reached the sandbox');
	});

	test('control: the same settings with the switch off are not read', async () => {
		const credentials = new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'sandbox',
				baseUrl: sb.baseUrl,
				customConventions: false,
				cursorParam: ' ',
				signatureAlgorithm: 'md5',
			},
		});
		const result = await runCall(credentials, { mode: 'getMany', path: '/articles', limit: 3 });
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('Call').length, 3);
	});
});

test('both credential types carry the conventions, behind one switch that is off by default', () => {
	const names = apiConventionProperties.map((p) => p.name);
	assert.equal(names.length, 17, 'the switch, 15 settings and the SHA-1 notice');
	for (const type of [new ErpApi(), new ErpOAuth2Api()]) {
		const own = type.properties.map((p) => p.name);
		assert.deepEqual(
			names.filter((name) => !own.includes(name)),
			[],
			type.name,
		);
		const toggle = type.properties.find((p) => p.name === 'customConventions');
		assert.equal(toggle?.default, false);
		// Every other field shows only with the switch on.
		for (const field of type.properties.filter((p) => names.includes(p.name) && p !== toggle))
			assert.deepEqual(field.displayOptions?.show?.customConventions, [true], field.name);
	}
});
