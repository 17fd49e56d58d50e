/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// ERP node, resource Article: every operation through a real workflow run against the sandbox,
// checked in the sandbox's own state.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { assertRefusedBeforeRequest, useErpTestEnv, byId, byReference } from './setup';

const env = useErpTestEnv();

const articleByReference = async (reference: string): Promise<IDataObject | undefined> =>
	(await env.list(`/articles?reference=${encodeURIComponent(reference)}`))[0];

describe('article', () => {
	test('create sends the fields unchanged and the article exists with them', async () => {
		const result = await env.run({
			resource: 'article',
			operation: 'create',
			reference: 'TEST-CREATE-1',
			designation: 'Test chair',
			prix_ht: 12345,
			tva: 550,
			additionalFields: { categorie_id: 'cat_mobilier', stock: 7, seuil_alerte: 2 },
		});
		assert.equal(result.success, true, result.error?.message);
		const [output] = result.output('ERP');
		const stored = await articleByReference('TEST-CREATE-1');
		assert.ok(stored, 'the article exists in the sandbox');
		assert.equal(output.id, stored.id);
		assert.equal(stored.prix_ht, 12345);
		assert.equal(stored.tva, 550);
		assert.equal(stored.stock, 7);
		assert.equal(stored.seuil_alerte, 2);
		assert.equal((stored.categorie as IDataObject).id, 'cat_mobilier');
		assert.deepEqual(result.items('ERP')[0].pairedItem, { item: 0 });
	});

	test('a duplicate reference surfaces the 409 with the API message and code', async () => {
		const result = await env.run({
			resource: 'article',
			operation: 'create',
			reference: 'REF-000001',
			designation: 'Duplicate',
			prix_ht: 100,
			tva: 2000,
		});
		assert.equal(result.success, false);
		const error = result.error as Error & { httpCode?: string; description?: string };
		assert.equal(error.name, 'NodeApiError');
		assert.equal(error.httpCode, '409');
		assert.match(error.message, /duplicate_reference/);
		assert.match(error.message, /An article with reference REF-000001 already exists/);
	});

	test('get by ID and by reference return the stored article', async () => {
		const stored = await articleByReference('REF-000010');
		assert.ok(stored);
		for (const articleId of [byId(String(stored.id)), byReference('REF-000010')]) {
			const result = await env.run({ resource: 'article', operation: 'get', articleId });
			assert.equal(result.success, true, result.error?.message);
			assert.deepEqual(result.output('ERP'), [stored]);
		}
	});

	test('get by an unknown reference fails naming it, without a GET by ID', async () => {
		const before = await env.stats();
		const result = await env.run({
			resource: 'article',
			operation: 'get',
			articleId: byReference('NO-SUCH-REF'),
		});
		assert.equal(result.success, false);
		assert.match(result.error!.message, /"Article": no article has the reference "NO-SUCH-REF"/);
		const after = await env.stats();
		assert.equal(
			after.byPath['GET /v1/articles/:id'] ?? 0,
			before.byPath['GET /v1/articles/:id'] ?? 0,
		);
	});

	test('update changes the given fields; a stock change writes an adjustment movement', async () => {
		const stored = (await articleByReference('REF-000020'))!;
		const result = await env.run({
			resource: 'article',
			operation: 'update',
			articleId: byReference('REF-000020'),
			updateFields: { stock: Number(stored.stock) + 15, designation: 'Renamed' },
		});
		assert.equal(result.success, true, result.error?.message);
		const now = (await articleByReference('REF-000020'))!;
		assert.equal(now.stock, Number(stored.stock) + 15);
		assert.equal(now.designation, 'Renamed');
		assert.equal(now.prix_ht, stored.prix_ht, 'fields not given are unchanged');
		const { body } = await env.api(
			'GET',
			`/stock/mouvements?article_id=${String(stored.id)}&limit=100`,
		);
		const adjustments = (body.data as IDataObject[]).filter((m) => m.type === 'ajustement');
		assert.equal(adjustments.length, 1);
		assert.equal(adjustments[0].quantite, 15);
		assert.equal(adjustments[0].stock_apres, Number(stored.stock) + 15);
	});

	test('update with no field is refused before any request', async () => {
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'article',
				operation: 'update',
				articleId: byId('art_00000001'),
				updateFields: {},
			},
			'Update Fields',
		);
	});

	describe('find or create by reference', () => {
		const params = {
			resource: 'article',
			operation: 'findOrCreate',
			reference: 'FOC-1',
			designation: 'Found or created',
			prix_ht: 990,
			tva: 2000,
		};

		test('creates once, then finds', async () => {
			const before = await env.stats();
			const first = await env.run(params);
			assert.equal(first.success, true, first.error?.message);
			const second = await env.run(params);
			assert.equal(second.success, true, second.error?.message);
			const [created] = first.output('ERP');
			const [found] = second.output('ERP');
			assert.equal(created._action, 'created');
			assert.equal(found._action, 'found');
			assert.equal(found.id, created.id);
			const after = await env.stats();
			assert.equal(
				(after.byPath['POST /v1/articles'] ?? 0) - (before.byPath['POST /v1/articles'] ?? 0),
				1,
				'exactly one article was created',
			);
			const { body } = await env.api('GET', '/articles?reference=FOC-1');
			assert.equal((body.pagination as IDataObject).total, 1);
		});

		test('"Update If Found" updates only when a value differs', async () => {
			const same = await env.run({ ...params, options: { updateIfFound: true } });
			assert.equal(same.output('ERP')[0]._action, 'found');

			const before = await env.stats();
			const changed = await env.run({ ...params, prix_ht: 1990, options: { updateIfFound: true } });
			assert.equal(changed.success, true, changed.error?.message);
			assert.equal(changed.output('ERP')[0]._action, 'updated');
			assert.equal((await articleByReference('FOC-1'))!.prix_ht, 1990);
			const after = await env.stats();
			assert.equal(
				(after.byPath['PATCH /v1/articles/:id'] ?? 0) -
					(before.byPath['PATCH /v1/articles/:id'] ?? 0),
				1,
			);

			const untouched = await env.run({ ...params, prix_ht: 5 });
			assert.equal(
				untouched.output('ERP')[0]._action,
				'found',
				'without the option nothing changes',
			);
			assert.equal((await articleByReference('FOC-1'))!.prix_ht, 1990);
		});
	});

	describe('get many', () => {
		test('Return All reads every article exactly once', async () => {
			const { body } = await env.api('GET', '/articles?limit=1');
			const total = (body.pagination as IDataObject).total as number;
			assert.ok(total >= 250);
			const result = await env.run({ resource: 'article', operation: 'getAll', returnAll: true });
			assert.equal(result.success, true, result.error?.message);
			const items = result.items('ERP');
			assert.equal(items.length, total);
			assert.equal(new Set(items.map((item) => item.json.id)).size, total);
			assert.ok(items.every((item) => (item.pairedItem as { item: number }).item === 0));
		});

		test('Limit returns that many, from the first page', async () => {
			const result = await env.run({ resource: 'article', operation: 'getAll', limit: 7 });
			const { body } = await env.api('GET', '/articles?limit=7');
			assert.deepEqual(
				result.output('ERP').map((a) => a.id),
				(body.data as IDataObject[]).map((a) => a.id),
			);
		});

		test('filters reach the API: category and search text', async () => {
			const result = await env.run({
				resource: 'article',
				operation: 'getAll',
				returnAll: true,
				filters: { categorie_id: 'cat_outillage', q: 'perceuse' },
			});
			const { body } = await env.api(
				'GET',
				'/articles?categorie_id=cat_outillage&q=perceuse&limit=100',
			);
			const output = result.output('ERP');
			assert.ok(output.length > 0);
			assert.equal(output.length, (body.pagination as IDataObject).total);
			for (const article of output) {
				assert.equal((article.categorie as IDataObject).id, 'cat_outillage');
				assert.match(String(article.designation), /perceuse/i);
			}
		});

		test('free query parameters are passed through', async () => {
			const result = await env.run({
				resource: 'article',
				operation: 'getAll',
				returnAll: true,
				options: {
					queryParameters: { parameter: [{ name: 'categorie_id', value: 'cat_mobilier' }] },
				},
			});
			const output = result.output('ERP');
			assert.ok(output.length > 0);
			assert.ok(output.every((a) => (a.categorie as IDataObject).id === 'cat_mobilier'));
		});

		test('a query parameter named limit or cursor is refused before any request', async () => {
			for (const name of ['limit', 'cursor']) {
				await assertRefusedBeforeRequest(
					env,
					{
						resource: 'article',
						operation: 'getAll',
						options: { queryParameters: { parameter: [{ name, value: '5' }] } },
					},
					'Query Parameters',
				);
			}
		});
	});

	test('list search filters by text and pages with the cursor', async () => {
		const filtered = await env.listSearch('searchArticles', 'clavier');
		assert.ok(filtered.results.length > 0);
		for (const { name, value } of filtered.results) {
			assert.match(String(name), /clavier/i);
			assert.match(String(value), /^art_/);
		}
		const first = await env.listSearch('searchArticles');
		assert.equal(first.results.length, 50);
		assert.ok(first.paginationToken, 'a next page token');
		const second = await env.listSearch('searchArticles', undefined, String(first.paginationToken));
		assert.equal(second.results.length, 50);
		const seen = new Set(first.results.map((r) => r.value));
		assert.ok(
			second.results.every((r) => !seen.has(r.value)),
			'the second page is new articles',
		);
	});

	test('categories load from the articles', async () => {
		const options = await env.loadOptions('getCategories');
		const { body } = await env.api('GET', '/articles?limit=100');
		const expected = new Set(
			(body.data as IDataObject[]).map((a) => (a.categorie as IDataObject).id as string),
		);
		assert.ok(expected.size > 1);
		const values = options.map((o) => o.value);
		for (const id of expected) assert.ok(values.includes(id), `${id} is offered`);
		assert.equal(new Set(values).size, values.length, 'no duplicates');
		assert.ok(options.find((o) => o.value === 'cat_mobilier')?.name === 'Mobilier');
	});
});
