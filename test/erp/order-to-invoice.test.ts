/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The "done when": one workflow run takes an e-commerce order to a paid invoice.
// Find or create the client by email -> issue the invoice from the order's line items (article
// references, from JSON) -> settle it in full, with the example's node parameters and order
// mapping (test/transport/order-burst.ts, shared with the burst test). Checked in the sandbox's state.
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import type { BurstOrder } from '../../scripts/order-burst';
import { mapOrder, orderToInvoiceNodes } from '../transport/order-burst';
import { useErpTestEnv } from './setup';

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
