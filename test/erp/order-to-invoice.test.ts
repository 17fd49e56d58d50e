/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The "done when": one workflow run takes an e-commerce order to a paid invoice.
// Find or create the client by email -> issue the invoice from the order's line items (article
// references, from JSON) -> settle it in full, with the example's node parameters and order
// mapping (test/transport/order-burst.ts, shared with the burst test). Checked in the sandbox's state.
// Then the error items the example's answers to the shop are chosen from.
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { EXAMPLE_IDS, loadExample } from '../../scripts/examples';
import { newSandboxKey } from '../../sandbox';
import { runWorkflow, TestCredentials } from '../harness';
import type { BurstOrder } from '../../scripts/order-burst';
import { mapOrder, orderToInvoiceNodes } from '../transport/order-burst';
import { ERP, useErpTestEnv } from './setup';

const env = useErpTestEnv();

test('order to paid invoice in one workflow run', async () => {
	const { body } = await env.api('GET', '/articles?limit=50');
	const [a, b] = (body.data as IDataObject[]).filter(
		(x) => Number(x.stock) >= 10 && x.seuil_alerte === 0,
	);
	const order: BurstOrder = {
		order_number: 'WEB-2026-0042',
		financial_status: 'paid',
		customer: { email: 'jeanne.durand@shop.example', name: 'Jeanne Durand' },
		line_items: [
			{ sku: String(a.reference), quantity: 2 },
			{ sku: String(b.reference), quantity: 1 },
		],
	};

	const result = await env.runNodes(orderToInvoiceNodes(), { input: [mapOrder(order)] });
	assert.equal(result.success, true, result.error?.message);

	const [client] = result.output('Find or create client');
	assert.equal(client._action, 'created');
	const [issued] = result.output('Issue invoice');
	const [settlement] = result.output('Record settlement');
	assert.equal(settlement.facture_id, issued.id);
	assert.equal(settlement.montant, issued.total_ttc);
	assert.equal(settlement.mode, 'carte');
	assert.equal(settlement.reference, 'Order WEB-2026-0042', "the example's settlement reference");

	const invoice = (await env.api('GET', `/factures/${String(issued.id)}`)).body;
	assert.equal(invoice.client_id, client.id);
	assert.equal(invoice.reference_externe, 'WEB-2026-0042');
	assert.equal(invoice.statut, 'payee');
	assert.equal(invoice.reste_a_payer, 0);
	assert.deepEqual(
		(invoice.lignes as IDataObject[]).map((l) => [l.article_id, l.quantite]),
		[
			[a.id, 2],
			[b.id, 1],
		],
	);

	const movements = (await env.api('GET', '/stock/mouvements?limit=100')).body
		.data as IDataObject[];
	assert.deepEqual(
		movements
			.filter((m) => m.document_id === issued.id)
			.map((m) => [m.article_id, m.type, m.quantite])
			.sort(),
		[
			[a.id, 'sortie', 2],
			[b.id, 'sortie', 1],
		].sort(),
	);
	assert.equal((await env.api('GET', `/articles/${String(a.id)}`)).body.stock, Number(a.stock) - 2);

	// The same order again: the client is found, not created twice.
	const again = await env.runNodes(orderToInvoiceNodes().slice(0, 1), {
		input: [mapOrder(order)],
	});
	assert.equal(again.output('Find or create client')[0]._action, 'found');
	assert.equal(again.output('Find or create client')[0].id, client.id);
});

/**
 * What the example's answers to the shop read (examples/order-to-invoice.json): its ERP nodes
 * continue on their error output, and *Fix the order?* tells a bad order (our node's message,
 * `Invalid value for "…"`, with no httpCode) from a temporary failure (e.g. httpCode 429) on the
 * failed item, which carries the ERP's facts in `details`.
 */
test('the error items the example answers the shop from: a bad order, then the rate limit', async () => {
	const example = loadExample(EXAMPLE_IDS.orderToInvoice);
	const erpNodes = example.nodes.filter((n) => n.type === ERP);
	assert.deepEqual(
		erpNodes.map((n) => [n.name, n.onError]),
		orderToInvoiceNodes().map((n) => [n.name, 'continueErrorOutput']),
	);
	const check = example.nodes.find((n) => n.name === 'Fix the order?')!;
	assert.match(JSON.stringify(check.parameters), /Invalid value for/);
	assert.match(JSON.stringify(check.parameters), /\$json\.details\.httpCode/);
	// The client's error output goes to Fix the order?; the invoice's and the settlement's first
	// to Already invoiced? (409 for a reference already used), whose other branch is Fix the order?
	const errorTarget = (name: string) =>
		(example.connections[name] as { main: Array<Array<{ node: string }>> }).main[1]?.map(
			(c) => c.node,
		);
	for (const { name } of erpNodes) {
		const expected = name === 'Find or create client' ? 'Fix the order?' : 'Already invoiced?';
		assert.deepEqual(errorTarget(name), [expected], `${name}: its error output`);
	}
	const already = example.connections['Already invoiced?'] as {
		main: Array<Array<{ node: string }>>;
	};
	assert.deepEqual(
		already.main.map((o) => o.map((c) => c.node)),
		[['Answer: 409 already invoiced'], ['Fix the order?']],
	);

	const nodes = orderToInvoiceNodes().map((n) => ({
		...n,
		onError: 'continueErrorOutput' as const,
	}));
	/** The failed item on `node`'s error output, and its ERP facts. */
	const failed = async (order: BurstOrder, node: string): Promise<IDataObject> => {
		const result = await env.runNodes(nodes, { input: [mapOrder(order)] });
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(result.output(node, 0), [], `${node}: nothing on the success output`);
		const [item] = result.output(node, 1);
		const facts: IDataObject = { ...(item.details as IDataObject), error: item.error };
		return facts;
	};
	const order: BurstOrder = {
		order_number: 'WEB-2026-0099',
		financial_status: 'paid',
		customer: { email: 'bad.order@shop.example', name: 'Bad Order' },
		line_items: [{ sku: 'REF-000001', quantity: 1 }],
	};
	const invoicesBefore = (await env.list('/factures?limit=100')).length;
	const cases: Array<[BurstOrder, string, RegExp]> = [
		[
			{ ...order, customer: { email: 'not-an-email', name: 'X' } },
			'Find or create client',
			/^Invalid value for "Email": .*"not-an-email" \[item 0\]$/,
		],
		[
			{ ...order, line_items: [{ sku: 'NO-SUCH-SKU', quantity: 1 }] },
			'Issue invoice',
			/^Invalid value for "Lines \(JSON\)\[0\]\.reference": .*"NO-SUCH-SKU" \[item 0\]$/,
		],
		[
			{ ...order, line_items: [{ sku: 'REF-000001', quantity: 1.5 }] },
			'Issue invoice',
			/^Invalid value for "Lines \(JSON\)\[0\]\.quantite": .*1\.5 \[item 0\]$/,
		],
	];
	for (const [bad, node, message] of cases) {
		const item = await failed(bad, node);
		assert.match(String(item.error), message);
		assert.equal(item.httpCode, null);
		assert.equal(item.code, null);
	}
	assert.equal((await env.list('/factures?limit=100')).length, invoicesBefore, 'nothing invoiced');

	// The ERP allows one request an hour: it asks for a wait far past the 60 s Max Rate-Limit Wait.
	await fetch(`${env.sandbox.url}/_sandbox/config`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ rateLimit: { limit: 1, windowSeconds: 3600 } }),
	});
	await env.api('GET', '/articles?limit=1'); // the hour's one request
	const busy = await failed(order, 'Find or create client');
	assert.equal(busy.httpCode, 429);
	assert.equal(busy.code, 'rate_limited');
	assert.match(String(busy.error), /Max Rate-Limit Wait/);
});

/**
 * The example's ERP nodes against an ERP that ignores Idempotency-Key: the same order sent again
 * gives the same invoice and settlement back; the same order number with another quantity is the
 * error item *Already invoiced?* sends to the 409 answer. Nothing is written twice.
 */
test('the same order again, then changed, against an ERP ignoring Idempotency-Key: one invoice, one settlement, a 409 item', async () => {
	await fetch(`${env.sandbox.url}/_sandbox/reset`, { method: 'POST' });
	await fetch(`${env.sandbox.url}/_sandbox/config`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ idempotencyKeys: 'ignore' }),
	});
	const order: BurstOrder = {
		order_number: '1042',
		financial_status: 'paid',
		customer: { email: 'resend@shop.example', name: 'Re Send' },
		line_items: [{ sku: 'REF-000001', quantity: 2 }],
	};
	const nodes = orderToInvoiceNodes().map((n) => ({
		...n,
		onError: 'continueRegularOutput' as const,
	}));
	// A key of its own: the process's pacing remembers the hour-long window the test above set.
	const key = await newSandboxKey(env.sandbox.url, [
		'clients:read',
		'clients:write',
		'articles:read',
		'factures:read',
		'factures:write',
	]);
	const credentials = new TestCredentials({
		erpApi: { apiKey: key, environment: 'sandbox', baseUrl: env.sandbox.baseUrl },
	});
	const runNodes = async (list: typeof nodes, o: BurstOrder) =>
		await runWorkflow({
			nodes: list,
			input: [mapOrder(o)],
			credentials,
			workflowId: 'example-1042',
		});
	const run = async (o: BurstOrder) => {
		const result = await runNodes(nodes, o);
		assert.equal(result.success, true, result.error?.message);
		return result;
	};
	const first = await run(order);
	const again = await run(order);
	assert.equal(again.output('Issue invoice')[0].already_issued, true);
	assert.equal(again.output('Issue invoice')[0].id, first.output('Issue invoice')[0].id);
	assert.equal(again.output('Record settlement')[0].already_recorded, true);
	assert.equal(again.output('Record settlement')[0].id, first.output('Record settlement')[0].id);

	const changed = await runNodes(nodes.slice(0, 2), {
		...order,
		line_items: [{ sku: 'REF-000001', quantity: 3 }],
	});
	const [conflict] = changed.output('Issue invoice');
	assert.equal(conflict.code, 'reference_conflict');
	assert.match(
		String(conflict.error),
		/quantity of REF-000001 \(art_\d+\): 2 on the invoice, 3 here/,
	);
	const example = loadExample(EXAMPLE_IDS.orderToInvoice);
	const check = example.nodes.find((n) => n.name === 'Already invoiced?')!;
	assert.match(JSON.stringify(check.parameters), /'reference_conflict'/);

	const invoices = (await env.list('/factures?reference_externe=1042')).length;
	const settlements = (await env.list('/reglements?reference=Order%201042')).length;
	assert.deepEqual([invoices, settlements], [1, 1]);
});
