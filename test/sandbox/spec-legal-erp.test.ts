/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests: the behaviours of a specification-legal ERP that the nodes must survive, switched
// on through the control API: Idempotency-Key ignored, list filters ignored, a POST committed then
// answered 502 (the failAfterCommit fault); and the settlement list (GET /reglements).
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { control, errorCode } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';

const sandbox = useSandbox({ reset: 'beforeEach' });
const api = sandbox.api;
const invoice = {
	client_id: 'cli_00000001',
	lignes: [{ article_id: 'art_00000030', quantite: 1 }],
	reference_externe: 'ORDER-9',
};
const headers = { 'Idempotency-Key': 'order-9' };
const invoices = async () => (await control(sandbox.url, 'stats')).json.invoices as number;

describe('idempotencyKeys', () => {
	it('keep (default): the same key and body make one invoice', async () => {
		assert.equal((await control(sandbox.url, 'config')).json.idempotencyKeys, 'keep');
		const before = await invoices();
		await api('POST', '/factures', { body: invoice, headers });
		const again = await api('POST', '/factures', { body: invoice, headers });
		assert.equal(again.headers['idempotent-replayed'], 'true');
		assert.equal(await invoices(), before + 1);
	});

	it('ignore: the same key and body make two invoices, and no answer says replayed', async () => {
		const config = await control(sandbox.url, 'config', { idempotencyKeys: 'ignore' });
		assert.equal(config.json.idempotencyKeys, 'ignore');
		const before = await invoices();
		const first = await api('POST', '/factures', { body: invoice, headers });
		const second = await api('POST', '/factures', { body: invoice, headers });
		assert.deepEqual([first.status, second.status], [201, 201]);
		assert.equal(second.headers['idempotent-replayed'], undefined);
		assert.notEqual(second.json.id, first.json.id);
		assert.equal(await invoices(), before + 2);
		// Another body under the same key is not refused either.
		const other = await api('POST', '/factures', {
			body: { ...invoice, reference_externe: 'ORDER-10' },
			headers,
		});
		assert.equal(other.status, 201);
	});

	it('reset goes back to keep; an unknown value is refused', async () => {
		await control(sandbox.url, 'config', { idempotencyKeys: 'ignore' });
		await control(sandbox.url, 'reset', {});
		assert.equal((await control(sandbox.url, 'config')).json.idempotencyKeys, 'keep');
		assert.equal((await control(sandbox.url, 'config', { idempotencyKeys: 'maybe' })).status, 422);
	});
});

describe('failAfterCommit 502', () => {
	it('commits the POST and answers 502 bad_gateway; with keys ignored, the resend is a second invoice', async () => {
		await control(sandbox.url, 'config', { idempotencyKeys: 'ignore' });
		await control(sandbox.url, 'faults', {
			faults: [
				{ kind: 'failAfterCommit', status: 502, count: 1, methods: ['POST'], paths: ['/factures'] },
			],
		});
		const before = await invoices();
		const failed = await api('POST', '/factures', { body: invoice, headers });
		assert.equal(failed.status, 502);
		assert.equal(errorCode(failed), 'bad_gateway');
		assert.equal(await invoices(), before + 1, 'committed');
		const resent = await api('POST', '/factures', { body: invoice, headers });
		assert.equal(resent.status, 201);
		assert.equal(await invoices(), before + 2);
	});
});

describe('listFilters', () => {
	it('ignore: a filtered list answers every record, paged; apply (default) filters', async () => {
		await api('POST', '/factures', { body: invoice });
		const filtered = await api('GET', '/factures?reference_externe=ORDER-9&limit=100');
		assert.equal(filtered.json.data.length, 1);
		await control(sandbox.url, 'config', { listFilters: 'ignore' });
		const all = await api('GET', '/factures?reference_externe=ORDER-9&limit=2');
		assert.equal(all.json.data.length, 2);
		assert.equal(all.json.pagination.total, await invoices());
		assert.ok(all.json.pagination.next_cursor, 'paged');
		assert.ok(
			all.json.data.every((f: { reference_externe: unknown }) => f.reference_externe !== 'ORDER-9'),
		);
	});
});

describe('GET /reglements', () => {
	it('lists settlements, filtered by facture_id and reference', async () => {
		const created = (await api('POST', '/factures', { body: invoice })).json;
		const pay = (montant: number, reference: string) =>
			api('POST', '/reglements', {
				body: { facture_id: created.id, montant, mode: 'carte', reference },
			});
		assert.equal((await pay(100, 'PAY-1')).status, 201);
		assert.equal((await pay(100, 'PAY-2')).status, 201);
		const mine = await api('GET', `/reglements?facture_id=${created.id}`);
		assert.deepEqual(
			mine.json.data.map((r: { reference: string }) => r.reference),
			['PAY-1', 'PAY-2'],
		);
		const one = await api('GET', `/reglements?facture_id=${created.id}&reference=PAY-2`);
		assert.equal(one.json.data.length, 1);
		assert.equal(one.json.data[0].montant, 100);
		const readonly = await api('GET', '/reglements', { key: 'sk_test_demo_readonly' });
		assert.equal(readonly.status, 200);
		const all = await api('GET', '/reglements?limit=100');
		assert.ok(all.json.data.length > 2, 'the seeded settlements too');
	});
});

describe('barrier fault', () => {
	it('holds matching requests until `parties` of them wait, then answers them all; a lone one goes at timeoutMs', async () => {
		await control(sandbox.url, 'faults', {
			faults: [
				{
					kind: 'barrier',
					parties: 2,
					count: 3,
					timeoutMs: 200,
					methods: ['GET'],
					paths: ['/factures'],
				},
			],
		});
		const order: string[] = [];
		const first = api('GET', '/factures').then((a) => order.push(`first ${a.status}`));
		// The first is held: another request, not matching, goes through before it.
		assert.equal((await api('GET', '/clients')).status, 200);
		order.push('clients');
		await Promise.all([
			first,
			api('GET', '/factures').then((a) => order.push(`second ${a.status}`)),
		]);
		assert.deepEqual(order.slice(0, 1), ['clients']);
		assert.deepEqual(order.slice(1).sort(), ['first 200', 'second 200']);
		// The third matching request waits alone, until the timeout.
		assert.equal((await api('GET', '/factures')).status, 200);
		assert.deepEqual((await control(sandbox.url, 'stats')).json.faults, { barrier: 3 });
	});
});
