/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The ERP Polling Trigger's Low Stock and Invoice Paid watches through n8n-core's PollContext
// (test/harness/poll.ts), against the sandbox. The expected crossings and payments are the
// sandbox's own stock.bas and facture.payee events (what the ERP Trigger would have received).
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import {
	newArticle,
	newClient,
	newInvoice,
	pay,
	poller,
	requestsDuring,
	sandboxEvents,
	setStock,
	useSandbox,
} from './polling-helpers';

const env = useSandbox();

const dataOf = (items: IDataObject[]) => items.map((item) => item.data as IDataObject);
/** The sandbox's stock.bas events for these articles, in order. */
const webhookCrossings = async (...articles: IDataObject[]) =>
	(await sandboxEvents(env.sandbox, 'stock.bas')).filter((event) =>
		articles.some((article) => article.id === event.article_id),
	);

describe('low stock', () => {
	it('fires once per crossing, again only after the stock recovered, with the stock.bas event data', async () => {
		const trigger = await poller(env.credentials, { watch: 'lowStock' });
		const article = await newArticle(env.sandbox, { stock: 20, seuil_alerte: 10 });
		const client = await newClient(env.sandbox);

		await setStock(env.sandbox, article.id, 8); // crossing 1
		const first = await trigger.poll();
		assert.equal(first.length, 1);
		assert.equal(first[0].type, 'stock.bas');
		await newInvoice(env.sandbox, client.id, article.id, 3); // 8 -> 5: still low, no crossing
		await setStock(env.sandbox, article.id, 10); // at the threshold: still low
		assert.deepEqual(await trigger.poll(), []);
		await setStock(env.sandbox, article.id, 11); // recovered: re-armed
		assert.deepEqual(await trigger.poll(), []);
		await newInvoice(env.sandbox, client.id, article.id, 2); // 11 -> 9: crossing 2, by a sale
		await setStock(env.sandbox, article.id, 30);
		await setStock(env.sandbox, article.id, 0); // crossing 3 in the same poll
		const later = await trigger.poll();
		assert.equal(later.length, 2);

		const expected = await webhookCrossings(article);
		assert.equal(expected.length, 3, 'the env.sandbox emitted three stock.bas');
		assert.deepEqual(dataOf(trigger.items), expected);
		assert.deepEqual(await trigger.restart(), [], 'a restart repeats no crossing');
	});

	it('a recovery seen only by a quiet poll (not saved by n8n) still re-arms after a restart', async () => {
		const trigger = await poller(env.credentials, { watch: 'lowStock' });
		const article = await newArticle(env.sandbox, { stock: 20, seuil_alerte: 10 });
		await setStock(env.sandbox, article.id, 5);
		assert.equal((await trigger.poll()).length, 1); // emitted: saved
		await setStock(env.sandbox, article.id, 50); // recovery
		assert.deepEqual(await trigger.poll(), []); // quiet: not saved
		await trigger.restart(); // back to the position saved with the alert
		await setStock(env.sandbox, article.id, 4); // the next drop
		const next = await trigger.poll();
		assert.deepEqual(dataOf(next), (await webhookCrossings(article)).slice(1));
		assert.equal(trigger.items.length, 2);
	});

	it('a fixed threshold applies to every article, whatever its seuil_alerte', async () => {
		const trigger = await poller(env.credentials, {
			watch: 'lowStock',
			threshold: 'fixed',
			thresholdValue: 100,
		});
		const a = await newArticle(env.sandbox, { stock: 150, seuil_alerte: 0 });
		const b = await newArticle(env.sandbox, { stock: 150, seuil_alerte: 0 });
		await setStock(env.sandbox, a.id, 100); // crossing (at the threshold)
		await setStock(env.sandbox, b.id, 101); // not yet
		await setStock(env.sandbox, b.id, 20); // crossing
		await setStock(env.sandbox, a.id, 99); // still low
		const items = await trigger.poll();
		assert.deepEqual(dataOf(items), [
			{
				article_id: a.id,
				mouvement_id: items[0].id,
				reference: a.reference,
				designation: a.designation,
				stock: 100,
				seuil_alerte: 100,
			},
			{
				article_id: b.id,
				mouvement_id: items[1].id,
				reference: b.reference,
				designation: b.designation,
				stock: 20,
				seuil_alerte: 100,
			},
		]);
		assert.deepEqual(
			await webhookCrossings(a, b),
			[],
			'control: no stock.bas from the ERP (threshold 0)',
		);
	});

	it('costs one request per quiet poll, whatever the number of articles', async () => {
		const trigger = await poller(env.credentials, { watch: 'lowStock' });
		const total = (await requestsDuring(env.sandbox, async () => trigger.poll())) as Record<
			string,
			number
		>;
		assert.deepEqual(total, { 'GET /v1/stock/mouvements': 1 });
		const article = await newArticle(env.sandbox, { stock: 50, seuil_alerte: 5 });
		await setStock(env.sandbox, article.id, 40); // down, not crossing: one article read
		const down = await requestsDuring(env.sandbox, async () => trigger.poll());
		assert.deepEqual(down, { 'GET /v1/stock/mouvements': 1, 'GET /v1/articles/:id': 1 });
	});
	it('a burst of 25 movements with 3 crossings costs one page of movements and one read per article', async () => {
		const trigger = await poller(env.credentials, { watch: 'lowStock' });
		const a = await newArticle(env.sandbox, { stock: 30, seuil_alerte: 10 });
		const b = await newArticle(env.sandbox, { stock: 30, seuil_alerte: 10 });
		for (const stock of [20, 15, 11, 10, 8, 6, 12, 14, 9, 7, 5])
			await setStock(env.sandbox, a.id, stock);
		for (const stock of [26, 24, 22, 20, 18, 16, 14, 12, 11, 10, 9, 8, 7, 6])
			await setStock(env.sandbox, b.id, stock);
		let items: IDataObject[] = [];
		const cost = await requestsDuring(env.sandbox, async () => (items = await trigger.poll()));
		assert.deepEqual(cost, { 'GET /v1/stock/mouvements': 1, 'GET /v1/articles/:id': 2 });
		assert.deepEqual(dataOf(items), await webhookCrossings(a, b));
		assert.equal(items.length, 3);
	});
});

describe('Fetch Test Event', () => {
	it('returns the last crossing in the journal and saves nothing', async () => {
		const trigger = await poller(env.credentials, { watch: 'lowStock' });
		const saved = trigger.savedState;
		const article = await newArticle(env.sandbox, { stock: 20, seuil_alerte: 10 });
		await setStock(env.sandbox, article.id, 9);
		await setStock(env.sandbox, article.id, 30); // the latest movement is no crossing
		const test = await trigger.fetchTestEvent();
		assert.deepEqual(dataOf(test), (await webhookCrossings(article)).slice(-1));
		assert.deepEqual(trigger.savedState, saved);
	});
});

describe('invoice paid', () => {
	it('emits each invoice once when it becomes paid, including one issued before activation', async () => {
		const client = await newClient(env.sandbox);
		const article = await newArticle(env.sandbox, { stock: 1000 });
		const old = await newInvoice(env.sandbox, client.id, article.id);
		const trigger = await poller(env.credentials, { watch: 'invoicePaid' });
		const fresh = await newInvoice(env.sandbox, client.id, article.id);
		assert.deepEqual(await trigger.poll(), []);
		await pay(env.sandbox, fresh, 100); // partly: not yet
		assert.deepEqual(await trigger.poll(), []);
		await pay(env.sandbox, fresh, Number(fresh.total_ttc) - 100); // the rest
		await pay(env.sandbox, old);
		const paid = await trigger.poll();
		const payee = await sandboxEvents(env.sandbox, 'facture.payee');
		assert.deepEqual(
			paid.map((item) => [item.type, item.id]),
			[
				['facture.payee', old.id],
				['facture.payee', fresh.id],
			],
		);
		const byId = (list: IDataObject[]) =>
			[...list].sort((x, y) => String(x.id).localeCompare(String(y.id)));
		assert.deepEqual(
			byId(dataOf(paid)),
			byId(payee.filter((event) => [old.id, fresh.id].includes(event.id))),
		);
		assert.deepEqual(await trigger.poll(), []);
		assert.deepEqual(await trigger.restart(), [], 'a restart repeats no payment');
		const open = trigger.savedState.open as string[];
		assert.ok(
			!open.includes(String(old.id)) && !open.includes(String(fresh.id)),
			'paid ones left open',
		);
	});
});
