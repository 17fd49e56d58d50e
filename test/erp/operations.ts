/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Every resource › operation of the ERP node, and parameters each one succeeds with, for the test
// files that go over them all (item-index, on-error). The list comes from the node's description,
// so a new operation cannot be left out: `assertEveryOperationCovered` fails until it has a baseline.
import assert from 'node:assert/strict';

import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { loadNodeType } from '../harness';
import type { RunWorkflowResult } from '../harness';
import type { ErpTestEnv } from './setup';
import { ERP, byId } from './setup';

/** Every resource › operation pair the node's description offers, as `resource.operation`. */
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

export const operations = operationsOf(loadNodeType(ERP).description.properties);

/** Whether the operation's baseline answers `limit` records per input item. */
export const isList = (name: string) => name.endsWith('.getAll') || name === 'apiRequest.send';

/** The records the baselines point at (an article, a client, an invoice with plenty left to pay). */
export type BaselineIds = Record<'article' | 'client' | 'invoice', string>;

const uniqueRef = '={{ $json.ref }}';
const uniqueEmail = '={{ $json.ref.toLowerCase() + "@item-index.test" }}';

/**
 * Parameters each operation succeeds with, per item, through `$json.ref` (a fresh value per item).
 * Lists (Get Many, and API Request › Send's List Items) read `limit` records (default 1).
 */
export function baselineParameters(name: string, ids: BaselineIds, limit = 1): INodeParameters {
	const page = { returnAll: false, limit };
	const baselines: Record<string, INodeParameters> = {
		'apiRequest.send': { method: 'GET', path: '/articles', output: 'items', ...page },
		'article.create': { reference: uniqueRef, designation: 'Item index', prix_ht: 100, tva: 2000 },
		'article.findOrCreate': {
			reference: uniqueRef,
			designation: 'Item index',
			prix_ht: 100,
			tva: 2000,
		},
		'article.get': { articleId: byId(ids.article) },
		'article.getAll': page,
		'article.update': { articleId: byId(ids.article), updateFields: { seuil_alerte: 3 } },
		'client.create': { nom: 'Item index', email: uniqueEmail },
		'client.findOrCreate': { nom: 'Item index', email: uniqueEmail },
		'client.get': { clientId: byId(ids.client) },
		'client.getAll': page,
		'client.update': { clientId: byId(ids.client), updateFields: { telephone: '0102030405' } },
		'generalLedger.getAll': page,
		'invoice.create': {
			clientId: byId(ids.client),
			linesMode: 'define',
			lines: { line: [{ articleId: byId(ids.article), quantite: 1 }] },
		},
		'invoice.get': { invoiceId: byId(ids.invoice) },
		'invoice.getAll': page,
		'settlement.create': { invoiceId: byId(ids.invoice), montant: 1, mode: 'virement' },
		'stockMovement.getAll': page,
	};
	const parameters = baselines[name];
	assert.ok(parameters, `no baseline for ${name}: add one to test/erp/operations.ts`);
	const [resource, operation] = name.split('.');
	return { resource, operation, ...parameters };
}

/** Fails unless every operation of the description has a baseline. */
export function assertEveryOperationCovered(ids: BaselineIds): void {
	assert.ok(operations.length >= 17, `only ${operations.length} operations found`);
	for (const name of operations) baselineParameters(name, ids);
}

/** Sets the sandbox's configuration (rate limit, daily quota...) through its control API. */
export async function configureSandbox(env: ErpTestEnv, body: IDataObject): Promise<void> {
	const response = await fetch(`${env.sandbox.url}/_sandbox/config`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	assert.equal(response.status, 200);
}

/** The records the baselines use: the first article and client, a new invoice of 1000.00. */
export async function createBaselineRecords(env: ErpTestEnv): Promise<BaselineIds> {
	const first = async (path: string) =>
		String(((await env.api('GET', `${path}?limit=1`)).body.data as IDataObject[])[0].id);
	const article = await first('/articles');
	const client = await first('/clients');
	const invoice = await env.api('POST', '/factures', {
		client_id: client,
		lignes: [{ article_id: article, quantite: 1, prix_ht: 100000 }],
	});
	assert.equal(invoice.status, 201, JSON.stringify(invoice.body));
	return { article, client, invoice: String(invoice.body.id) };
}

/**
 * What one item of `name` costs, in requests: `runOne` (one input item, which must succeed) is
 * run under a daily quota that cannot run out, and the sandbox's requests counted. A test then
 * sets the quota to this, so that a second item's first request is refused (429).
 */
export async function oneItemCost(
	env: ErpTestEnv,
	name: string,
	runOne: () => Promise<RunWorkflowResult>,
): Promise<number> {
	await configureSandbox(env, { dailyQuota: 100000 });
	const before = (await env.stats()).requests;
	const alone = await runOne();
	assert.equal(alone.success, true, `${name} baseline: ${alone.error?.message}`);
	const cost = (await env.stats()).requests - before;
	assert.ok(cost >= 1, `${name}: item 0 sent no request`);
	return cost;
}
