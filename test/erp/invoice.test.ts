/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// ERP node, resources Invoice and Settlement: issuing from lines defined in the node or from JSON,
// totals, stock, movements and ledger in the sandbox; settlements; 409s; continue-on-fail.
import assert from 'node:assert/strict';
import { beforeAll, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { assertRefusedBeforeRequest, useErpTestEnv, byId, byReference } from './setup';

const env = useErpTestEnv();
/** Seeded articles with plenty of stock and no low-stock threshold. */
let stocked: IDataObject[];
let clientId: string;

beforeAll(async () => {
	const { body } = await env.api('GET', '/articles?limit=100');
	stocked = (body.data as IDataObject[]).filter(
		(a) => Number(a.stock) >= 50 && a.seuil_alerte === 0,
	);
	assert.ok(stocked.length >= 8, 'enough stocked articles in the seed');
	const clients = await env.api('GET', '/clients?limit=1');
	clientId = String((clients.body.data as IDataObject[])[0].id);
});

async function article(id: unknown): Promise<IDataObject> {
	return (await env.api('GET', `/articles/${String(id)}`)).body;
}

async function invoice(id: unknown): Promise<IDataObject> {
	return (await env.api('GET', `/factures/${String(id)}`)).body;
}

/** The totals the contract gives for lines (VAT rounded half up per line). */
function expectedTotals(
	lines: Array<{ article: IDataObject; quantite: number; prix_ht?: number }>,
) {
	let ht = 0;
	let tva = 0;
	for (const line of lines) {
		const lineHt = (line.prix_ht ?? Number(line.article.prix_ht)) * line.quantite;
		ht += lineHt;
		tva += Math.round((lineHt * Number(line.article.tva)) / 10000);
	}
	return { total_ht: ht, total_tva: tva, total_ttc: ht + tva };
}

describe('invoice create', () => {
	test('lines defined in the node: totals, stock out, movements and ledger entries', async () => {
		const [a, b] = [stocked[0], stocked[1]];
		const result = await env.run({
			resource: 'invoice',
			operation: 'create',
			clientId: byId(clientId),
			linesMode: 'define',
			lines: {
				line: [
					{ articleId: byId(String(a.id)), quantite: 3, prix_ht: '' },
					{ articleId: byReference(String(b.reference)), quantite: 2, prix_ht: '1500' },
				],
			},
			additionalFields: { reference_externe: 'ORDER-100', date: '2026-03-15' },
		});
		assert.equal(result.success, true, result.error?.message);
		const [output] = result.output('ERP');
		const stored = await invoice(output.id);
		assert.deepEqual(
			{ total_ht: stored.total_ht, total_tva: stored.total_tva, total_ttc: stored.total_ttc },
			expectedTotals([
				{ article: a, quantite: 3 },
				{ article: b, quantite: 2, prix_ht: 1500 },
			]),
		);
		assert.equal(stored.reference_externe, 'ORDER-100');
		assert.equal(stored.date, '2026-03-15');
		assert.equal(stored.statut, 'emise');
		assert.equal(stored.reste_a_payer, stored.total_ttc);
		assert.deepEqual(
			(stored.lignes as IDataObject[]).map((l) => [l.article_id, l.quantite, l.prix_ht]),
			[
				[a.id, 3, a.prix_ht],
				[b.id, 2, 1500],
			],
		);

		assert.equal((await article(a.id)).stock, Number(a.stock) - 3);
		assert.equal((await article(b.id)).stock, Number(b.stock) - 2);
		a.stock = Number(a.stock) - 3;
		b.stock = Number(b.stock) - 2;

		const { body } = await env.api('GET', '/stock/mouvements?limit=100&date_debut=2000-01-01');
		const movements = (body.data as IDataObject[]).filter((m) => m.document_id === output.id);
		assert.deepEqual(
			movements.map((m) => [m.article_id, m.type, m.quantite, m.origine]).sort(),
			[
				[a.id, 'sortie', 3, 'facture'],
				[b.id, 'sortie', 2, 'facture'],
			].sort(),
		);

		const ledger = await env.api('GET', '/comptabilite/grand-livre?compte=411&limit=100');
		const entry = (ledger.body.data as IDataObject[]).find((e) => e.piece === stored.numero);
		assert.equal(entry?.debit, stored.total_ttc);
	});

	test('lines from JSON: references resolved once each, synonyms accepted', async () => {
		const [a, b] = [stocked[2], stocked[3]];
		const lines = [
			{ reference: a.reference, quantity: 1, name: 'ignored key' },
			{ article_id: b.id, quantite: '2', unit_price: 700 },
			{ reference: a.reference, quantite: 4, prix_ht: 250 },
		];
		const before = await env.stats();
		const result = await env.run(
			{
				resource: 'invoice',
				operation: 'create',
				clientId: byId(clientId),
				linesMode: 'json',
				linesJson: '={{ $json.lines }}',
			},
			{ input: [{ lines }] },
		);
		assert.equal(result.success, true, result.error?.message);
		const after = await env.stats();
		assert.equal(
			(after.byPath['GET /v1/articles'] ?? 0) - (before.byPath['GET /v1/articles'] ?? 0),
			1,
			'one lookup for the one distinct reference',
		);
		const stored = await invoice(result.output('ERP')[0].id);
		assert.deepEqual(
			(stored.lignes as IDataObject[]).map((l) => [l.article_id, l.quantite, l.prix_ht]),
			[
				[a.id, 1, a.prix_ht],
				[b.id, 2, 700],
				[a.id, 4, 250],
			],
		);
		assert.equal((await article(a.id)).stock, Number(a.stock) - 5);
		a.stock = Number(a.stock) - 5;
		b.stock = Number(b.stock) - 2;
	});

	test('JSON lines given as text are parsed', async () => {
		const a = stocked[4];
		const result = await env.run({
			resource: 'invoice',
			operation: 'create',
			clientId: byId(clientId),
			linesMode: 'json',
			linesJson: JSON.stringify([{ article_id: a.id, quantity: 1 }]),
		});
		assert.equal(result.success, true, result.error?.message);
		a.stock = Number(a.stock) - 1;
	});

	test('an unknown reference in JSON lines fails naming it, and no invoice is issued', async () => {
		const before = await env.stats();
		const result = await env.run({
			resource: 'invoice',
			operation: 'create',
			clientId: byId(clientId),
			linesMode: 'json',
			linesJson: JSON.stringify([
				{ reference: stocked[0].reference, quantity: 1 },
				{ reference: 'SKU-UNKNOWN', quantity: 1 },
			]),
		});
		assert.equal(result.success, false);
		assert.match(
			result.error!.message,
			/"Lines \(JSON\)\[1\]\.reference": no article has the reference "SKU-UNKNOWN"/,
		);
		const after = await env.stats();
		assert.equal(after.byPath['POST /v1/factures'] ?? 0, before.byPath['POST /v1/factures'] ?? 0);
	});

	test('malformed JSON lines are refused before any request', async () => {
		const run = (linesJson: string, label: string) =>
			assertRefusedBeforeRequest(
				env,
				{
					resource: 'invoice',
					operation: 'create',
					clientId: byId(clientId),
					linesMode: 'json',
					linesJson,
				},
				label,
			);
		await run('{"reference": "REF-000001"}', 'Lines (JSON)');
		await run('[not json', 'Lines (JSON)');
		await run('[]', 'Lines (JSON)');
		await run('[{"quantity": 1}]', 'Lines (JSON)[0].article_id');
		await run(
			'[{"article_id": "art_00000001", "reference": "REF-000001", "quantity": 1}]',
			'Lines (JSON)[0].article_id',
		);
		await run('[{"reference": "REF-000001", "quantity": 1.5}]', 'Lines (JSON)[0].quantity');
		await run('[{"reference": "REF-000001", "quantity": "2.0"}]', 'Lines (JSON)[0].quantity');
		await run(
			'[{"reference": "REF-000001", "quantite": 2, "quantity": 3}]',
			'Lines (JSON)[0].quantite',
		);
		await run('[{"reference": "REF-000001", "quantity": 0}]', 'Lines (JSON)[0].quantity');
		await run(
			'[{"reference": "REF-000001", "quantity": 1, "unit_price": 9.99}]',
			'Lines (JSON)[0].unit_price',
		);
		await run('[{"article_id": "cli_00000001", "quantity": 1}]', 'Lines (JSON)[0].article_id');
	});

	test('defined lines: a fractional quantity or price and a bad date are refused before any request', async () => {
		const base = {
			resource: 'invoice',
			operation: 'create',
			clientId: byId(clientId),
			linesMode: 'define',
		};
		const line = { articleId: byId(String(stocked[0].id)), quantite: 1, prix_ht: '' };
		await assertRefusedBeforeRequest(
			env,
			{ ...base, lines: { line: [{ ...line, quantite: 2.5 }] } },
			'Lines › Line 1 › Quantity',
		);
		await assertRefusedBeforeRequest(
			env,
			{ ...base, lines: { line: [line, { ...line, prix_ht: '12.50' }] } },
			'Lines › Line 2 › Unit Price (Cents)',
		);
		await assertRefusedBeforeRequest(env, { ...base, lines: {} }, 'Lines');
		await assertRefusedBeforeRequest(
			env,
			{ ...base, lines: { line: [line] }, additionalFields: { date: '2026-02-30' } },
			'Date',
		);
	});

	test('insufficient stock surfaces the 409 with the API message; nothing is issued', async () => {
		const a = stocked[5];
		const before = await env.api('GET', '/factures?limit=1');
		const result = await env.run({
			resource: 'invoice',
			operation: 'create',
			clientId: byId(clientId),
			lines: {
				line: [{ articleId: byId(String(a.id)), quantite: Number(a.stock) + 1, prix_ht: '' }],
			},
		});
		assert.equal(result.success, false);
		assert.equal((result.error as Error & { httpCode?: string }).httpCode, '409');
		assert.match(result.error!.message, /insufficient_stock/);
		assert.ok(result.error!.message.includes(`Insufficient stock for ${String(a.reference)}`));
		const after = await env.api('GET', '/factures?limit=1');
		assert.equal(
			(after.body.pagination as IDataObject).total,
			(before.body.pagination as IDataObject).total,
		);
		assert.equal((await article(a.id)).stock, a.stock);
	});

	test('continue on fail: error items carry the API code, later items still run, all paired', async () => {
		const a = stocked[6];
		const result = await env.run(
			{
				resource: 'invoice',
				operation: 'create',
				clientId: byId(clientId),
				lines: {
					line: [{ articleId: byId(String(a.id)), quantite: '={{ $json.qty }}', prix_ht: '' }],
				},
				additionalFields: { reference_externe: '={{ $json.order }}' },
			},
			{
				continueOnFail: true,
				input: [
					{ qty: 1, order: 'CF-1' },
					{ qty: 100000, order: 'CF-2' },
					{ qty: 1.5, order: 'CF-3' },
					{ qty: 2, order: 'CF-4' },
				],
			},
		);
		assert.equal(result.success, true, result.error?.message);
		const items = result.items('ERP');
		assert.deepEqual(
			items.map((item) => item.pairedItem),
			[{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }],
		);
		const [ok1, stock409, badQty, ok2] = items.map((item) => item.json);
		assert.equal(ok1.reference_externe, 'CF-1');
		assert.equal(ok2.reference_externe, 'CF-4');
		assert.equal(stock409.code, 'insufficient_stock');
		assert.equal(stock409.httpCode, 409);
		assert.match(String(stock409.error), /Insufficient stock/);
		assert.match(
			String(badQty.error),
			/"Lines › Line 1 › Quantity": expected a whole number, got 1\.5 \[item 2\]/,
		);
		assert.equal(badQty.code, null);
		assert.equal((await invoice(ok2.id)).statut, 'emise', 'the item after the failures was issued');
		assert.equal((await article(a.id)).stock, Number(a.stock) - 3);
	});
});

describe('invoice get and list', () => {
	test('get returns the stored invoice', async () => {
		const { body } = await env.api('GET', '/factures?limit=1');
		const [first] = body.data as IDataObject[];
		const result = await env.run({
			resource: 'invoice',
			operation: 'get',
			invoiceId: byId(String(first.id)),
		});
		assert.deepEqual(result.output('ERP'), [first]);
	});

	test('get many filters by client and status', async () => {
		const result = await env.run({
			resource: 'invoice',
			operation: 'getAll',
			returnAll: true,
			filters: { clientId: byId(clientId), statut: 'emise' },
		});
		const output = result.output('ERP');
		const { body } = await env.api('GET', `/factures?client_id=${clientId}&statut=emise&limit=100`);
		assert.ok(output.length >= 3);
		assert.deepEqual(
			output.map((f) => f.id),
			(body.data as IDataObject[]).map((f) => f.id),
		);
		assert.ok(output.every((f) => f.client_id === clientId && f.statut === 'emise'));
	});

	test('an unknown status is refused before any request', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'invoice', operation: 'getAll', filters: { statut: 'cancelled' } },
			'Status',
		);
	});

	test('list search matches the number or the external reference', async () => {
		const { results } = await env.listSearch('searchInvoices', 'cmd-1002');
		assert.equal(results.length, 1);
		const { body } = await env.api('GET', '/factures?reference_externe=CMD-1002');
		assert.equal(results[0].value, (body.data as IDataObject[])[0].id);
		const all = await env.listSearch('searchInvoices');
		assert.ok(all.results.length >= 5);
	});
});

describe('settlement', () => {
	let invoiceId: string;
	let total: number;

	beforeAll(async () => {
		const created = await env.api('POST', '/factures', {
			client_id: clientId,
			lignes: [{ article_id: stocked[7].id, quantite: 2 }],
		});
		assert.equal(created.status, 201);
		invoiceId = String(created.body.id);
		total = Number(created.body.total_ttc);
	});

	const settle = (montant: number, extra: INodeParameters = {}) =>
		env.run({
			resource: 'settlement',
			operation: 'create',
			invoiceId: byId(invoiceId),
			montant,
			mode: 'virement',
			...extra,
		});

	test('a partial settlement lowers reste_a_payer', async () => {
		const result = await settle(1000, {
			additionalFields: { reference: 'TX-1', date: '2026-04-01' },
		});
		assert.equal(result.success, true, result.error?.message);
		const [reglement] = result.output('ERP');
		assert.equal(reglement.montant, 1000);
		assert.equal(reglement.reference, 'TX-1');
		const stored = await invoice(invoiceId);
		assert.equal(stored.reste_a_payer, total - 1000);
		assert.equal(stored.montant_regle, 1000);
		assert.equal(stored.statut, 'partiellement_payee');
	});

	test('more than what is left surfaces the 409 insufficient_balance', async () => {
		const result = await settle(total);
		assert.equal(result.success, false);
		assert.equal((result.error as Error & { httpCode?: string }).httpCode, '409');
		assert.match(result.error!.message, /insufficient_balance/);
		assert.ok(result.error!.message.includes(`left to pay`));
		assert.equal((await invoice(invoiceId)).reste_a_payer, total - 1000);
	});

	test('paying the rest makes the invoice paid', async () => {
		const result = await settle(total - 1000, { mode: 'carte' });
		assert.equal(result.success, true, result.error?.message);
		const stored = await invoice(invoiceId);
		assert.equal(stored.reste_a_payer, 0);
		assert.equal(stored.statut, 'payee');
	});

	test('a fractional or zero amount and an unknown mode are refused before any request', async () => {
		const params = {
			resource: 'settlement',
			operation: 'create',
			invoiceId: byId(invoiceId),
			mode: 'carte',
		};
		await assertRefusedBeforeRequest(env, { ...params, montant: 10.5 }, 'Amount (Cents)');
		await assertRefusedBeforeRequest(env, { ...params, montant: '10.5' }, 'Amount (Cents)');
		await assertRefusedBeforeRequest(env, { ...params, montant: 0 }, 'Amount (Cents)');
		await assertRefusedBeforeRequest(
			env,
			{ ...params, montant: '={{ $json.amount }}', mode: '={{ $json.mode }}' },
			'Payment Method',
			{ input: [{ amount: 100, mode: 'bitcoin' }] },
		);
	});
});
