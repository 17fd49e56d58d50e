/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Input checks of the ERP node: the pure validators, then each refusal through a workflow run,
// with the sandbox showing that no request arrived.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import {
	MAX_LENGTH,
	checkDateRange,
	toBoolean,
	toDate,
	toEmail,
	toEnum,
	toId,
	toInteger,
	toOptionalText,
	toText,
} from '../../nodes/shared/validation';
import { assertRefusedBeforeRequest, useErpTestEnv } from './setup';

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

	test('text: a string or a whole number (sent as its digits); nothing else is turned into text', () => {
		assert.equal(toText(src, ' REF-1 ', 'filter'), 'REF-1');
		assert.equal(toText(src, 1042, 'filter'), '1042');
		assert.equal(toOptionalText(src, 411, 'phone'), '411');
		assert.equal(toOptionalText(src, '', 'phone'), '');
		assert.equal(toOptionalText(src, null, 'phone'), null);
		assert.equal(toOptionalText(src, undefined, 'phone'), null);
		for (const bad of [12.5, NaN, Infinity, 2 ** 60, true, false, {}, { a: 1 }, [], ['x']]) {
			assert.throws(
				() => toText(src, bad, 'filter'),
				/Invalid value for "Field": expected a text, got/,
				String(bad),
			);
			assert.throws(
				() => toOptionalText(src, bad, 'address'),
				/Invalid value for "Field": expected a text, got/,
				String(bad),
			);
		}
		for (const blank of ['', '  ', null, undefined]) {
			assert.throws(() => toText(src, blank, 'filter'), /a non-empty text is required/);
		}
	});

	test('length limits: the limit itself is allowed, one more character is refused', () => {
		assert.equal(MAX_LENGTH.designation, 500);
		assert.equal(toText(src, 'x'.repeat(500), 'designation').length, 500);
		assert.throws(
			() => toText(src, 'x'.repeat(100_000), 'designation'),
			(error: Error) =>
				error.message === 'Invalid value for "Field": at most 500 characters (got 100000) [item 3]',
		);
		assert.throws(() => toOptionalText(src, '0'.repeat(51), 'phone'), /at most 50 characters/);
		assert.equal(toId(src, `art_${'a'.repeat(96)}`, 'article').length, 100);
		assert.throws(() => toId(src, `art_${'a'.repeat(97)}`, 'article'), /at most 100 characters/);
		assert.throws(() => toEmail(src, `${'a'.repeat(190)}@example.com`), /at most 200 characters/);
		// A refused value is shown cut short in the message, not in full.
		assert.throws(
			() => toDate(src, '9'.repeat(10_000)),
			(error: Error) => error.message.length < 200 && /10002 characters/.test(error.message),
		);
	});

	test('booleans: true/false, or the text "true"/"false" in any case (as n8n parses it); nothing else', () => {
		assert.equal(toBoolean(src, true), true);
		assert.equal(toBoolean(src, false), false);
		assert.equal(toBoolean(src, 'true'), true);
		assert.equal(toBoolean(src, 'FALSE'), false);
		for (const bad of ['perhaps', 'yes', '', ' true', 1, 0, null, undefined, {}, []]) {
			assert.throws(
				() => toBoolean(src, bad),
				/Invalid value for "Field": expected true or false/,
				String(bad),
			);
		}
	});
});

describe('refusals in a workflow, before any request', () => {
	const env = useErpTestEnv();

	const article = {
		resource: 'article',
		operation: 'create',
		reference: 'VAL-1',
		designation: 'Validation',
		prix_ht: 1000,
		tva: 2000,
	};
	const settlement = { resource: 'settlement', operation: 'create', montant: 100, mode: 'carte' };

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
		const getArticle = (mode: string, value: string) => ({
			resource: 'article',
			operation: 'get',
			articleId: { __rl: true, mode, value },
		});
		for (const value of ['', 'cli_00000001', '12']) {
			await assertRefusedBeforeRequest(env, getArticle('id', '={{ $json.id }}'), 'Article', {
				input: [{ id: value }],
			});
		}
		await assertRefusedBeforeRequest(env, getArticle('reference', '={{ "" }}'), 'Article');
		await assertRefusedBeforeRequest(
			env,
			{
				...settlement,
				invoiceId: { __rl: true, mode: 'list', value: '={{ "cli_00000001" }}' },
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
				...settlement,
				invoiceId: { __rl: true, mode: 'id', value: 'fac_00000001' },
				additionalFields: { date: '2026-02-30' },
			},
			'Date',
		);
	});

	// Bad values arrive through an expression, as from an earlier node or an AI agent.
	const fromInput = '={{ $json.value }}';

	test('a filter given an object or array is refused, never dropped (no unfiltered list)', async () => {
		const cases: Array<[string, string, string, IDataObject[string]]> = [
			['article', 'reference', 'Reference', { ref: 'REF-000001' }],
			['article', 'q', 'Search Text', ['chaise']],
			['article', 'categorie_id', 'Category Name or ID', { id: 'cat_mobilier' }],
			['client', 'q', 'Search Text', { q: 'martin' }],
			['generalLedger', 'compte', 'Account', { compte: 411 }],
			['generalLedger', 'date_debut', 'Start Date', { date: '2026-01-01' }],
			['stockMovement', 'date_fin', 'End Date', ['2026-01-31']],
		];
		for (const [resource, filter, label, value] of cases) {
			await assertRefusedBeforeRequest(
				env,
				{ resource, operation: 'getAll', returnAll: true, filters: { [filter]: fromInput } },
				label,
				{ input: [{ value }] },
			);
		}
	});

	test('an empty filter means "not set", and a whole number is a text filter', async () => {
		const all = (await env.api('GET', '/articles?limit=1')).body.pagination as { total: number };
		const blank = await env.run(
			{ resource: 'article', operation: 'getAll', returnAll: true, filters: { q: fromInput } },
			{ input: [{ value: '' }] },
		);
		assert.equal(blank.success, true, blank.error?.message);
		assert.equal(blank.output('ERP').length, all.total);

		const created = await env.api('POST', '/articles', {
			reference: '7301',
			designation: 'Numbered article',
			prix_ht: 100,
			tva: 2000,
		});
		assert.equal(created.status, 201);
		const byNumber = await env.run(
			{
				resource: 'article',
				operation: 'getAll',
				returnAll: true,
				filters: { reference: fromInput },
			},
			{ input: [{ value: 7301 }] },
		);
		assert.equal(byNumber.success, true, byNumber.error?.message);
		assert.deepEqual(
			byNumber.output('ERP').map((a) => a.reference),
			['7301'],
		);
	});

	test('phone and address given an object, array or boolean are refused, not sent as text', async () => {
		const clientId = { __rl: true, mode: 'id', value: 'cli_00000001' };
		const cases: Array<[INodeParameters, string, IDataObject[string]]> = [
			[
				{
					resource: 'client',
					operation: 'create',
					nom: 'Object Phone',
					email: 'object.phone@example.com',
					additionalFields: { telephone: fromInput },
				},
				'Phone',
				{ number: '+33 1 40 00 00 00' },
			],
			[
				{ resource: 'client', operation: 'update', clientId, updateFields: { adresse: fromInput } },
				'Address',
				['12 rue de la République', '69000 Lyon'],
			],
			[
				{
					resource: 'client',
					operation: 'findOrCreate',
					email: 'bool.phone@example.com',
					nom: 'Boolean Phone',
					additionalFields: { telephone: fromInput },
				},
				'Phone',
				true,
			],
			[
				{
					resource: 'article',
					operation: 'create',
					reference: fromInput,
					designation: 'Float reference',
					prix_ht: 100,
					tva: 2000,
				},
				'Reference',
				10.42,
			],
		];
		for (const [parameters, label, value] of cases) {
			const error = await assertRefusedBeforeRequest(env, parameters, label, {
				input: [{ value }],
			});
			assert.match(error.message, /expected a text/);
		}
	});

	test('text longer than the contract limits is refused, with the limit in the message', async () => {
		const error = await assertRefusedBeforeRequest(
			env,
			{ ...article, designation: fromInput },
			'Designation',
			{ input: [{ value: 'x'.repeat(100_000) }] },
		);
		assert.equal(
			error.message,
			'Invalid value for "Designation": at most 500 characters (got 100000) [item 0]',
		);
		await assertRefusedBeforeRequest(env, { ...article, reference: 'R'.repeat(101) }, 'Reference');
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'client',
				operation: 'update',
				clientId: { __rl: true, mode: 'id', value: 'cli_00000001' },
				updateFields: { telephone: '0'.repeat(51) },
			},
			'Phone',
		);
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'article',
				operation: 'getAll',
				options: {
					queryParameters: { parameter: [{ name: 'categorie_id', value: 'v'.repeat(2001) }] },
				},
			},
			'Query Parameters › Parameter 1 › Value',
		);
	});

	test('a boolean given anything but true/false is refused; the text "true" counts as true', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'client', operation: 'getAll', returnAll: fromInput },
			'Return All',
			{ input: [{ value: 'perhaps' }] },
		);
		await assertRefusedBeforeRequest(
			env,
			{ ...article, operation: 'findOrCreate', options: { updateIfFound: fromInput } },
			'Update If Found',
			{ input: [{ value: 1 }] },
		);
		const all = await env.run(
			{ resource: 'client', operation: 'getAll', returnAll: fromInput, limit: 1 },
			{ input: [{ value: 'true' }] },
		);
		assert.equal(all.success, true, all.error?.message);
		const { body } = await env.api('GET', '/clients?limit=1');
		assert.equal(all.output('ERP').length, (body.pagination as { total: number }).total);
	});

	test('an unknown Lines Source names "Lines Source"', async () => {
		const error = await assertRefusedBeforeRequest(
			env,
			{
				resource: 'invoice',
				operation: 'create',
				clientId: { __rl: true, mode: 'id', value: 'cli_00000001' },
				linesMode: 'lines',
			},
			'Lines Source',
		);
		assert.match(error.message, /expected one of define, json/);
	});
});
