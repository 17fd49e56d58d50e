/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// "Add Decimal Amounts" (issue 15): through real runs against the sandbox, each money field in
// cents gets a `<field>_decimal` in currency units next to it, and `tva` a `tva_percent`; the
// API's integers stay as they are, and without the option nothing is added.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { byId, useErpTestEnv } from './setup';

const env = useErpTestEnv();

/** Every key of a record, nested ones as `parent.key` (array entries as `parent[].key`). */
function keys(record: IDataObject, prefix = ''): string[] {
	return Object.entries(record).flatMap(([key, value]) => {
		if (Array.isArray(value)) {
			return [
				`${prefix}${key}`,
				...value.flatMap((v) =>
					typeof v === 'object' && v !== null ? keys(v as IDataObject, `${prefix}${key}[].`) : [],
				),
			];
		}
		return [`${prefix}${key}`];
	});
}

describe('Add Decimal Amounts', () => {
	test('an article: prix_ht_decimal and tva_percent next to the integers', async () => {
		const created = await env.run({
			resource: 'article',
			operation: 'create',
			reference: 'DEC-1',
			designation: 'Decimal test',
			prix_ht: 96905,
			tva: 550,
			additionalFields: {},
			decimalAmounts: true,
		});
		assert.equal(created.success, true, created.error?.message);
		const [article] = created.output('ERP');
		assert.equal(article.prix_ht, 96905);
		assert.equal(article.prix_ht_decimal, 969.05);
		assert.equal(article.tva, 550);
		assert.equal(article.tva_percent, 5.5);
		const order = Object.keys(article);
		assert.equal(order.indexOf('prix_ht_decimal'), order.indexOf('prix_ht') + 1, 'right after');

		// Control: without the option, the API's record as it is.
		const plain = await env.run({
			resource: 'article',
			operation: 'get',
			articleId: byId(String(article.id)),
		});
		const [raw] = plain.output('ERP');
		assert.equal(raw.prix_ht, 96905);
		assert.deepEqual(
			keys(raw).filter((k) => /_decimal$|_percent$/.test(k)),
			[],
		);
	});

	test('an invoice and its lines, a settlement, and ledger entries', async () => {
		const { body } = await env.api('GET', '/articles?limit=100');
		const article = (body.data as IDataObject[]).find((a) => Number(a.stock) >= 10) as IDataObject;
		const clients = await env.api('GET', '/clients?limit=1');
		const clientId = String((clients.body.data as IDataObject[])[0].id);

		const issued = await env.run({
			resource: 'invoice',
			operation: 'create',
			clientId: byId(clientId),
			linesMode: 'define',
			lines: { line: [{ articleId: byId(String(article.id)), quantite: 2, prix_ht: '1999' }] },
			additionalFields: {},
			decimalAmounts: true,
		});
		assert.equal(issued.success, true, issued.error?.message);
		const [invoice] = issued.output('ERP');
		for (const field of ['total_ht', 'total_tva', 'total_ttc', 'montant_regle', 'reste_a_payer']) {
			assert.equal(invoice[`${field}_decimal`], Number(invoice[field]) / 100, field);
		}
		assert.equal(invoice.total_ht_decimal, 39.98);
		const [line] = invoice.lignes as IDataObject[];
		assert.equal(line.prix_ht_decimal, 19.99);

		const settled = await env.run({
			resource: 'settlement',
			operation: 'create',
			invoiceId: byId(String(invoice.id)),
			montant: 1050,
			mode: 'virement',
			additionalFields: {},
			decimalAmounts: true,
		});
		assert.equal(settled.success, true, settled.error?.message);
		assert.equal(settled.output('ERP')[0].montant_decimal, 10.5);

		const ledger = await env.run({
			resource: 'generalLedger',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: {},
			options: {},
			decimalAmounts: true,
		});
		assert.equal(ledger.success, true, ledger.error?.message);
		const entries = ledger.output('ERP');
		assert.ok(entries.length > 0);
		for (const entry of entries) {
			assert.equal(entry.debit_decimal, Number(entry.debit) / 100);
			assert.equal(entry.credit_decimal, Number(entry.credit) / 100);
		}
	});
});
