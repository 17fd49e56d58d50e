/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// ERP node, resources Stock Movement and General Ledger: list filters reach the API, dates are
// checked before any request.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { assertRefusedBeforeRequest, useErpTestEnv } from './setup';

const env = useErpTestEnv();
const list = (path: string) => env.list(path);

describe('stock movements', () => {
	test('filter by article (by reference) and date range', async () => {
		// Give one article movements on two days: an adjustment now and a seeded invoice earlier.
		const [movement] = await list('/stock/mouvements?limit=1');
		const articleId = String(movement.article_id);
		const stored = (await env.api('GET', `/articles/${articleId}`)).body as {
			stock: number;
			reference: string;
		};
		await env.api('PATCH', `/articles/${articleId}`, { stock: Number(stored.stock) + 1 });
		const all = await list(`/stock/mouvements?article_id=${articleId}&limit=100`);
		assert.ok(all.length >= 2);

		const result = await env.run({
			resource: 'stockMovement',
			operation: 'getAll',
			returnAll: true,
			filters: { articleId: { __rl: true, mode: 'reference', value: stored.reference } },
		});
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(result.output('ERP'), all);

		const day = String(movement.date).slice(0, 10);
		const ranged = await env.run({
			resource: 'stockMovement',
			operation: 'getAll',
			returnAll: true,
			filters: {
				articleId: { __rl: true, mode: 'id', value: articleId },
				date_debut: day,
				date_fin: day,
			},
		});
		const expected = all.filter((m) => String(m.date).slice(0, 10) === day);
		assert.ok(expected.length > 0 && expected.length < all.length);
		assert.deepEqual(ranged.output('ERP'), expected);
	});

	test('impossible dates and a reversed range are refused before any request', async () => {
		const run = (filters: Record<string, string>, label: string) =>
			assertRefusedBeforeRequest(
				env,
				{ resource: 'stockMovement', operation: 'getAll', filters },
				label,
			);
		await run({ date_debut: '2026-13-01' }, 'Start Date');
		await run({ date_fin: '2026-02-29' }, 'End Date');
		await run({ date_debut: '01/02/2026' }, 'Start Date');
		await run({ date_debut: '2026-03-02', date_fin: '2026-03-01' }, 'Start Date');
	});
});

describe('general ledger', () => {
	test('filter by account and dates; Limit is exact', async () => {
		const entries = await list('/comptabilite/grand-livre?limit=100');
		const day = String(entries[0].date);
		const result = await env.run({
			resource: 'generalLedger',
			operation: 'getAll',
			returnAll: true,
			filters: { compte: '411', date_debut: day, date_fin: day },
		});
		const expected = entries.filter((e) => e.compte === '411' && e.date === day);
		assert.ok(expected.length > 0);
		assert.deepEqual(result.output('ERP'), expected);

		const limited = await env.run({ resource: 'generalLedger', operation: 'getAll', limit: 3 });
		assert.deepEqual(limited.output('ERP'), entries.slice(0, 3));
	});

	test('a Limit below 1 or fractional is refused before any request', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'generalLedger', operation: 'getAll', limit: '={{ 2.5 }}' },
			'Limit',
		);
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'generalLedger', operation: 'getAll', limit: '={{ 0 }}' },
			'Limit',
		);
	});
});
