/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Every operation's error names its item (issue 18): through the real engine against the
// sandbox, two input items of which item 1 is refused, by the API (daily quota used up by item 0,
// a 429 the transport never waits through) and by the input check (a bad request option), and
// the error's context.itemIndex is 1. Controls: the same refusals on item 0 give 0. The list of
// operations comes from the node's description, so a new operation cannot be left out.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { loadNodeType } from '../harness';
import type { ErpTestEnv } from './setup';
import { ERP, byId, startErpTestEnv } from './setup';

let env: ErpTestEnv;
const ids: Record<string, string> = {};
let runCounter = 0;

/** Every resource › operation pair the node's description offers. */
function operationsOf(properties: INodeProperties[]): string[] {
	const out: string[] = [];
	for (const p of properties.filter((q) => q.name === 'operation')) {
		for (const resource of (p.displayOptions?.show?.resource ?? []) as string[]) {
			for (const option of (p.options ?? []) as Array<{ value: string }>) {
				out.push(`${resource}.${option.value}`);
			}
		}
	}
	return out.sort();
}

const uniqueRef = '={{ $json.ref }}';
const uniqueEmail = '={{ $json.ref.toLowerCase() + "@item-index.test" }}';
const firstPage = { returnAll: false, limit: 1 };

/** Parameters each operation succeeds with (per item, through `$json.ref`, a fresh value). */
const baselines: Record<string, () => INodeParameters> = {
	'apiRequest.send': () => ({ method: 'GET', path: '/articles', output: 'body' }),
	'article.create': () => ({
		reference: uniqueRef,
		designation: 'Item index',
		prix_ht: 100,
		tva: 2000,
	}),
	'article.findOrCreate': () => ({
		reference: uniqueRef,
		designation: 'Item index',
		prix_ht: 100,
		tva: 2000,
	}),
	'article.get': () => ({ articleId: byId(ids.article) }),
	'article.getAll': () => firstPage,
	'article.update': () => ({ articleId: byId(ids.article), updateFields: { seuil_alerte: 3 } }),
	'client.create': () => ({ nom: 'Item index', email: uniqueEmail }),
	'client.findOrCreate': () => ({ nom: 'Item index', email: uniqueEmail }),
	'client.get': () => ({ clientId: byId(ids.client) }),
	'client.getAll': () => firstPage,
	'client.update': () => ({
		clientId: byId(ids.client),
		updateFields: { telephone: '0102030405' },
	}),
	'generalLedger.getAll': () => firstPage,
	'invoice.create': () => ({
		clientId: byId(ids.client),
		linesMode: 'define',
		lines: { line: [{ articleId: byId(ids.article), quantite: 1 }] },
	}),
	'invoice.get': () => ({ invoiceId: byId(ids.invoice) }),
	'invoice.getAll': () => firstPage,
	'settlement.create': () => ({ invoiceId: byId(ids.invoice), montant: 1, mode: 'virement' }),
	'stockMovement.getAll': () => firstPage,
};

const operations = operationsOf(loadNodeType(ERP).description.properties);

async function configure(body: IDataObject): Promise<void> {
	const response = await fetch(`${env.sandbox.url}/_sandbox/config`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	assert.equal(response.status, 200);
}

/** Runs `name` over `items` input items, each with a fresh `ref`. */
async function run(
	name: string,
	items: number,
	extra: INodeParameters = {},
	input?: IDataObject[],
) {
	const [resource, operation] = name.split('.');
	return await env.run(
		{ resource, operation, ...baselines[name](), ...extra },
		{
			input:
				input ?? Array.from({ length: items }, (_, k) => ({ ref: `IDX-${++runCounter}-${k}` })),
		},
	);
}

type ItemError = Error & { context?: IDataObject; httpCode?: string | null };

function itemIndexOf(error: Error | undefined): unknown {
	return (error as ItemError | undefined)?.context?.itemIndex;
}

/** Item 1 (then, as the control, item 0) refused by the API: the daily quota runs out. */
async function refusedByQuota(name: string): Promise<void> {
	// What item 0 alone costs, in requests (its baseline must succeed).
	await configure({ dailyQuota: 100000 });
	const before = (await env.stats()).requests;
	const alone = await run(name, 1);
	assert.equal(alone.success, true, `${name} baseline: ${alone.error?.message}`);
	const cost = (await env.stats()).requests - before;
	assert.ok(cost >= 1, `${name}: item 0 sent no request`);

	// The quota allows exactly item 0's requests: item 1's first request gets 429.
	await configure({ dailyQuota: cost });
	const result = await run(name, 2);
	assert.equal(result.success, false, `${name}: item 1 should have been refused`);
	const error = result.error as ItemError;
	assert.equal(error.name, 'NodeApiError', error.message);
	assert.match(error.message, /daily/i);
	assert.equal(itemIndexOf(error), 1, `${name}: ${error.message}`);

	// Control: the quota used up before item 0, so item 0 is the one refused.
	await configure({ dailyQuota: 1 });
	assert.equal((await env.api('GET', '/articles?limit=1')).status, 200);
	const control = await run(name, 2);
	assert.equal(control.success, false);
	assert.equal(control.error?.name, 'NodeApiError', control.error?.message);
	assert.equal(itemIndexOf(control.error), 0, `${name}: ${control.error?.message}`);
}

beforeAll(async () => {
	env = await startErpTestEnv();
	await configure({ rateLimit: false });
	for (const [kind, path] of [
		['article', '/articles'],
		['client', '/clients'],
	]) {
		ids[kind] = String(
			((await env.api('GET', `${path}?limit=1`)).body.data as IDataObject[])[0].id,
		);
	}
	// An invoice with plenty left to pay, for the settlements of this file.
	const invoice = await env.api('POST', '/factures', {
		client_id: ids.client,
		lignes: [{ article_id: ids.article, quantite: 1, prix_ht: 100000 }],
	});
	assert.equal(invoice.status, 201, JSON.stringify(invoice.body));
	ids.invoice = String(invoice.body.id);
});

afterAll(async () => {
	await env?.close();
});

describe('every operation names its item in its errors', () => {
	test('the operations under test are exactly those of the description', () => {
		assert.ok(operations.length >= 17, `only ${operations.length} operations found`);
		assert.deepEqual(Object.keys(baselines).sort(), operations);
	});

	test.each(operations)(
		'%s: refused by the API on item 1 (daily quota), the error says item 1',
		async (name) => {
			try {
				await refusedByQuota(name);
			} finally {
				await configure({ dailyQuota: 100000 });
			}
		},
	);

	test.each(operations)(
		'%s: refused by the input check on item 1, the error says item 1',
		async (name) => {
			const wait = { requestOptions: { maxWaitSeconds: '={{ $json.wait }}' } };
			const before = (await env.stats()).requests;
			for (const bad of [1, 0]) {
				const input = [0, 1].map((k) => ({
					ref: `IDX-${++runCounter}-${k}`,
					wait: k === bad ? -1 : 60,
				}));
				const result = await run(name, 2, wait, input);
				assert.equal(result.success, false, `${name}: item ${bad} should have been refused`);
				const error = result.error as ItemError;
				assert.equal(error.name, 'NodeOperationError', error.message);
				assert.match(
					error.message,
					new RegExp(
						`^Invalid value for "Request Options › Max Rate-Limit Wait \\(Seconds\\)": .* \\[item ${bad}\\]$`,
					),
				);
				assert.equal(itemIndexOf(error), bad, `${name}: ${error.message}`);
			}
			assert.equal((await env.stats()).requests, before, 'refused before any request');
		},
	);
});
