/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// n8n's Retry On Fail (node Settings) with the pack's own retries (issue 40), through n8n-core's
// engine (which runs the node again, up to Max Tries, over all its input items) against the
// sandbox, counted in the sandbox's request log:
// - a write the ERP applied but answered 502 (and no Idempotency-Key to protect a resend): sent
//   once, one record, the execution fails saying why (before: sent again, two records);
// - items already written are not sent again when a later item's refusal makes n8n retry;
// - a 429 past Max Rate-Limit Wait is not sent again (no second wait);
// - what stays as n8n does it, the controls: a write the ERP refused (409) is sent at every try,
//   and a read that keeps failing costs the pack's 6 attempts at every try.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { control, newSandboxKey, sandboxRequests, UNPACED } from '../../sandbox';
import { runWorkflow, TestCredentials } from '../harness';
import type { NodeSpec } from '../harness';
import { ERP, byId, useErpTestEnv } from './setup';

const env = useErpTestEnv();
let counter = 0;
const MAX_TRIES = 3;

/** One ERP node with Retry On Fail on (3 tries, 1 ms apart), over `input`. */
async function runWithRetries(
	parameters: INodeParameters,
	input: IDataObject[],
	more: Partial<NodeSpec> = {},
) {
	return await env.runNodes(
		[
			{
				name: 'ERP',
				parameters,
				retryOnFail: true,
				maxTries: MAX_TRIES,
				waitBetweenTries: 1,
				...more,
			},
		],
		{ input, workflowId: `retries-${++counter}` },
	);
}

/** How many requests the sandbox logged for `method path` (a path prefix, after /v1). */
async function sent(method: string, path: string): Promise<number> {
	return (await sandboxRequests(env.sandbox.url)).filter(
		(r) => r.method === method && r.path.startsWith(`/v1${path}`),
	).length;
}

async function faults(list: IDataObject[]): Promise<void> {
	assert.equal((await control(env.sandbox.url, 'faults', { faults: list })).status, 200);
}

const articles = async (reference: string) =>
	(await env.list(`/articles?reference=${encodeURIComponent(reference)}`)).filter(
		(a) => a.reference === reference,
	).length;

const newArticle = (reference: string, requestOptions: INodeParameters = {}): INodeParameters => ({
	resource: 'article',
	operation: 'create',
	reference,
	designation: 'Retry On Fail',
	prix_ht: 100,
	tva: 2000,
	requestOptions,
});

beforeEach(async () => {
	await env.reset();
	assert.equal((await control(env.sandbox.url, 'config', { rateLimit: UNPACED })).status, 200);
});

describe('Retry On Fail never sends again what may have been applied', () => {
	test('a write applied but answered 502, with no Idempotency-Key: sent once, one record, the execution fails saying why', async () => {
		await faults([
			{ kind: 'failAfterCommit', status: 502, methods: ['POST'], paths: ['/articles'], count: 1 },
		]);
		const reference = `RETRY-${++counter}`;
		const result = await runWithRetries(newArticle(reference, { idempotency: 'off' }), [{}]);
		assert.equal(result.success, false, 'the execution fails');
		const error = result.error as Error & { description?: string };
		assert.match(
			String(error.description),
			/Retry On Fail did not send it again: the ERP may have applied it/,
		);
		assert.equal(await sent('POST', '/articles'), 1, 'one POST');
		assert.equal(await articles(reference), 1, 'one article');
	});

	test('items already written are not sent again when a later item makes n8n retry', async () => {
		const invoicesOf = async (client: string) =>
			(await env.list(`/factures?client_id=${client}&limit=100`)).length;
		const before = await invoicesOf('cli_00000001');
		const result = await runWithRetries(
			{
				resource: 'invoice',
				operation: 'create',
				clientId: byId('={{ $json.client }}'),
				linesMode: 'define',
				lines: { line: [{ articleId: byId('art_00000001'), quantite: 1 }] },
				requestOptions: { idempotency: 'off' },
			},
			[{ client: 'cli_00000001' }, { client: 'cli_99999999' }],
		);
		assert.equal(result.success, false);
		assert.match(String(result.error?.message), /cli_99999999/);
		// Item 0 once; item 1 (refused: nothing applied) at every try, as n8n retries it.
		assert.equal(await sent('POST', '/factures'), 1 + MAX_TRIES);
		assert.equal((await invoicesOf('cli_00000001')) - before, 1, 'item 0 made one invoice');
	});

	test('a 429 past Max Rate-Limit Wait is not sent again (no second wait)', async () => {
		assert.equal(
			(await control(env.sandbox.url, 'config', { rateLimit: { limit: 1, windowSeconds: 3600 } }))
				.status,
			200,
		);
		// A key of its own: the pacer keeps this key closed for the hour the 429 names, and the
		// demo key of the other tests must not wait for it.
		const key = await newSandboxKey(env.sandbox.url, ['articles:read']);
		const hourly = await fetch(`${env.sandbox.baseUrl}/articles?limit=1`, {
			headers: { Authorization: `Bearer ${key}` },
		});
		assert.equal(hourly.status, 200); // the hour's one request
		const before = await sent('GET', '/articles');
		const result = await runWorkflow({
			nodes: [
				{
					name: 'ERP',
					type: ERP,
					parameters: { resource: 'article', operation: 'getAll', returnAll: false, limit: 1 },
					retryOnFail: true,
					maxTries: MAX_TRIES,
					waitBetweenTries: 1,
				},
			],
			credentials: new TestCredentials({
				erpApi: { apiKey: key, environment: 'sandbox', baseUrl: env.sandbox.baseUrl },
			}),
			workflowId: `retries-${++counter}`,
		});
		assert.equal(result.success, false);
		assert.equal((result.error as Error & { httpCode?: string }).httpCode, '429');
		assert.equal((await sent('GET', '/articles')) - before, 1, 'one request, not one per try');
	});
});

describe('controls: what Retry On Fail does send again', () => {
	test('a write the ERP refused (409) is sent at every try', async () => {
		const taken = `RETRY-409-${++counter}`;
		assert.equal(
			(
				await env.api('POST', '/articles', {
					reference: taken,
					designation: 'T',
					prix_ht: 1,
					tva: 0,
				})
			).status,
			201,
		);
		const result = await runWithRetries(newArticle(taken), [{}]);
		assert.equal(result.success, false);
		assert.equal(await sent('POST', '/articles'), 1 + MAX_TRIES, 'the setup, then one per try');
	});

	test("a read that keeps failing costs the pack's 6 attempts at every try", async () => {
		await faults([{ kind: 'status', status: 503, methods: ['GET'], paths: ['/clients'] }]);
		const result = await runWithRetries(
			{ resource: 'client', operation: 'get', clientId: byId('cli_00000001') },
			[{}],
			{ maxTries: 2 },
		);
		assert.equal(result.success, false);
		assert.equal(await sent('GET', '/clients'), 6 * 2);
	}, 120_000);
});
