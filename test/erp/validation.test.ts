/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Input checks of the ERP node: the pure validators, then each refusal through a workflow run,
// with the sandbox showing that no request arrived.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { INode } from 'n8n-workflow';

import {
	checkDateRange,
	toDate,
	toEmail,
	toEnum,
	toId,
	toInteger,
} from '../../nodes/Erp/actions/validation';
import type { ErpTestEnv } from './setup';
import { assertRefusedBeforeRequest, startErpTestEnv } from './setup';

const src = { node: { name: 'ERP' } as INode, label: 'Field', itemIndex: 3 };

describe('validators', () => {
	test('integers: whole numbers and digit strings pass, anything else is refused, never rounded', () => {
		assert.equal(toInteger(src, 12), 12);
		assert.equal(toInteger(src, '12'), 12);
		assert.equal(toInteger(src, ' -4 '), -4);
		for (const bad of [
			12.5,
			'12.5',
			'12,5',
			'1e3',
			'',
			' ',
			'abc',
			null,
			undefined,
			NaN,
			Infinity,
			true,
			{},
			[],
			2 ** 60,
		]) {
			assert.throws(
				() => toInteger(src, bad),
				/Invalid value for "Field": expected a whole number/,
				String(bad),
			);
		}
		assert.throws(() => toInteger(src, 0, { min: 1 }), /must be at least 1, got 0 \[item 3\]/);
		assert.throws(() => toInteger(src, 10001, { max: 10000 }), /must be at most 10000/);
	});

	test('the error is a NodeOperationError with the item index', () => {
		try {
			toInteger(src, 1.5);
			assert.fail('should throw');
		} catch (error) {
			assert.equal((error as Error).name, 'NodeOperationError');
			assert.equal((error as { context: { itemIndex: number } }).context.itemIndex, 3);
		}
	});

	test('dates: YYYY-MM-DD and real', () => {
		assert.equal(toDate(src, '2024-02-29'), '2024-02-29');
		for (const bad of [
			'2023-02-29',
			'2026-04-31',
			'2026-00-10',
			'2026-1-01',
			'26-01-01',
			'2026/01/01',
			'2026-01-01T00:00:00Z',
			20260101,
			'',
		]) {
			assert.throws(() => toDate(src, bad), /Invalid value for "Field"/, String(bad));
		}
		assert.doesNotThrow(() => checkDateRange(src, '2026-01-01', '2026-01-01'));
		assert.throws(() => checkDateRange(src, '2026-01-02', '2026-01-01'), /after the end date/);
	});

	test('ids, emails and enumerations', () => {
		assert.equal(toId(src, ' art_00000001 ', 'article'), 'art_00000001');
		for (const bad of ['', '   ', 'cli_00000001', 'art_', 'art 1', 'ART_1', 42, null]) {
			assert.throws(() => toId(src, bad, 'article'), /Invalid value for "Field"/, String(bad));
		}
		assert.equal(toEmail(src, 'a.b@c.example'), 'a.b@c.example');
		for (const bad of ['a@b', 'a b@c.d', '@c.d', 'plain', '']) {
			assert.throws(() => toEmail(src, bad), /expected an email address/, bad);
		}
		assert.equal(toEnum(src, 'carte', ['carte', 'cheque']), 'carte');
		assert.throws(() => toEnum(src, 'Carte', ['carte', 'cheque']), /expected one of carte, cheque/);
	});
});

describe('refusals in a workflow, before any request', () => {
	let env: ErpTestEnv;
	before(async () => {
		env = await startErpTestEnv();
	});
	after(async () => {
		await env.close();
	});

	const article = {
		resource: 'article',
		operation: 'create',
		reference: 'VAL-1',
		designation: 'Validation',
		prix_ht: 1000,
		tva: 2000,
	};

	test('article create: price, VAT, stock, threshold, reference', async () => {
		await assertRefusedBeforeRequest(env, { ...article, prix_ht: 12.5 }, 'Unit Price (Cents)');
		await assertRefusedBeforeRequest(env, { ...article, prix_ht: '12.5' }, 'Unit Price (Cents)');
		await assertRefusedBeforeRequest(env, { ...article, prix_ht: -1 }, 'Unit Price (Cents)');
		await assertRefusedBeforeRequest(env, { ...article, tva: 19.6 }, 'VAT Rate (Basis Points)');
		await assertRefusedBeforeRequest(env, { ...article, tva: 20000 }, 'VAT Rate (Basis Points)');
		await assertRefusedBeforeRequest(
			env,
			{ ...article, additionalFields: { stock: 3.2 } },
			'Stock',
		);
		await assertRefusedBeforeRequest(
			env,
			{ ...article, additionalFields: { seuil_alerte: '5.5' } },
			'Low-Stock Threshold',
		);
		await assertRefusedBeforeRequest(env, { ...article, reference: '  ' }, 'Reference');
	});

	test('the failing item is named', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ ...article, reference: '={{ $json.ref }}', prix_ht: '={{ $json.price }}' },
			'Unit Price (Cents)',
			{
				input: [
					{ ref: 'VAL-A', price: '100' },
					{ ref: 'VAL-B', price: '99.9' },
				],
				item: 1,
			},
		);
		const { body } = await env.api('GET', '/articles?reference=VAL-A');
		assert.equal((body.pagination as { total: number }).total, 0, 'item 0 was not sent either');
	});

	test('article update: a float stock; locators: an empty or wrong-kind ID from an expression', async () => {
		const articleId = { __rl: true, mode: 'id', value: 'art_00000001' };
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'article', operation: 'update', articleId, updateFields: { stock: 1.5 } },
			'Stock',
		);
		for (const value of ['', 'cli_00000001', '12']) {
			await assertRefusedBeforeRequest(
				env,
				{
					resource: 'article',
					operation: 'get',
					articleId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				},
				'Article',
				{ input: [{ id: value }] },
			);
		}
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'article',
				operation: 'get',
				articleId: { __rl: true, mode: 'reference', value: '={{ "" }}' },
			},
			'Article',
		);
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'settlement',
				operation: 'create',
				invoiceId: { __rl: true, mode: 'list', value: '={{ "cli_00000001" }}' },
				montant: 100,
				mode: 'carte',
			},
			'Invoice',
		);
	});

	test('client email and settlement date', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'client', operation: 'findOrCreate', email: 'jane@', nom: 'Jane' },
			'Email',
		);
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'settlement',
				operation: 'create',
				invoiceId: { __rl: true, mode: 'id', value: 'fac_00000001' },
				montant: 100,
				mode: 'carte',
				additionalFields: { date: '2026-02-30' },
			},
			'Date',
		);
	});
});
