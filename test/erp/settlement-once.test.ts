/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Settlement › Record with a Reference: at most one settlement per reference and invoice, and no
// settlement on an invoice already paid in full, against an ERP that ignores Idempotency-Key (the
// sandbox's `idempotencyKeys: 'ignore'`): a POST committed then answered 502 and retried by n8n's
// Retry On Fail, a re-run, a changed payment, two executions at once. Each promise has a control
// that records money twice (the check turned off).
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { UNPACED } from '../../sandbox';
import { byId, useErpTestEnv } from './setup';

const env = useErpTestEnv({ rateLimit: UNPACED });
let invoice: IDataObject;
let reference: string;

const configure = async (config: IDataObject) => await env.control('config', config);
const faults = async (...list: IDataObject[]) => await env.control('faults', { faults: list });

beforeEach(async () => {
	await env.reset();
	await configure({ idempotencyKeys: 'ignore' });
	const clients = await env.list('/clients?limit=1');
	const created = await env.api('POST', '/factures', {
		client_id: clients[0].id,
		lignes: [{ article_id: 'art_00000030', quantite: 1, prix_ht: 10000 }],
	});
	assert.equal(created.status, 201);
	invoice = created.body;
	reference = `PAY-${Math.random().toString(36).slice(2, 8)}`;
});

/** The settlements recorded on the invoice (with `reference` unless `all`). */
async function settlements(all = false): Promise<IDataObject[]> {
	return (await env.list(`/reglements?facture_id=${String(invoice.id)}&limit=100`)).filter(
		(r) => all || r.reference === reference,
	);
}

function record(montant: number, options: INodeParameters = {}, mode = 'carte'): INodeParameters {
	return {
		resource: 'settlement',
		operation: 'create',
		invoiceId: byId(String(invoice.id)),
		montant,
		mode,
		additionalFields: { reference },
		options,
	};
}

const CHECK_OFF = { checkExisting: false };
const half = () => Number(invoice.total_ttc) / 2;

describe('a POST committed then answered 502, retried by Retry On Fail', () => {
	const committedThen502 = {
		kind: 'failAfterCommit',
		status: 502,
		count: 1,
		methods: ['POST'],
		paths: ['/reglements'],
	};
	const withRetry = async (parameters: INodeParameters) =>
		await env.runNodes([
			{ name: 'ERP', parameters, retryOnFail: true, maxTries: 3, waitBetweenTries: 1 },
		]);

	test('one settlement: the retry finds it and hands it on with already_recorded: true', async () => {
		await faults(committedThen502);
		const result = await withRetry(record(half()));
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP')[0].already_recorded, true);
		assert.equal((await env.stats()).byStatus['502'], 1);
		assert.equal((await settlements()).length, 1);
	});

	// With the check off, Retry On Fail does not send a write the ERP may have applied (issue 40,
	// nodes/Erp/actions/retries.ts): the run fails saying so. The control's second settlement
	// comes from what is left, a re-run of the execution against an ERP that ignores the key.
	test('control, the check off: Retry On Fail stops, saying the ERP may have applied it; a re-run then records the payment twice', async () => {
		await faults(committedThen502);
		const result = await withRetry(record(half(), CHECK_OFF));
		assert.equal(result.success, false);
		assert.match(
			String((result.error as { description?: string } | undefined)?.description),
			/may have applied it/,
		);
		assert.equal((await settlements()).length, 1);
		const rerun = await env.runNodes([{ name: 'ERP', parameters: record(half(), CHECK_OFF) }]);
		assert.equal(rerun.success, true, rerun.error?.message);
		assert.equal((await settlements()).length, 2);
	});
});

describe('a re-run of the execution', () => {
	test('one settlement: the second run gives it back, nothing posted', async () => {
		const first = await env.run(record(half()), { workflowId: 'settle-rerun' });
		assert.equal(first.success, true, first.error?.message);
		assert.equal(first.output('ERP')[0].already_recorded, false);
		const second = await env.run(record(half()), { workflowId: 'settle-rerun' });
		assert.equal(second.success, true, second.error?.message);
		assert.equal(second.output('ERP')[0].already_recorded, true);
		assert.equal(second.output('ERP')[0].id, first.output('ERP')[0].id);
		assert.equal((await env.stats()).byPath['POST /v1/reglements'], 1);
	});

	test('the full amount again: the recorded settlement comes back (not "already paid")', async () => {
		const full = Number(invoice.total_ttc);
		assert.equal((await env.run(record(full))).success, true);
		const again = await env.run(record(full));
		assert.equal(again.success, true, again.error?.message);
		assert.equal(again.output('ERP')[0].already_recorded, true);
		assert.equal((await settlements()).length, 1);
	});

	test('control, the check off: two settlements', async () => {
		await env.run(record(half(), CHECK_OFF), { workflowId: 'settle-rerun-off' });
		await env.run(record(half(), CHECK_OFF), { workflowId: 'settle-rerun-off' });
		assert.equal((await settlements()).length, 2);
	});
});

describe('a changed payment with the same reference', () => {
	test('a conflict error naming the settlement and what differs; nothing recorded', async () => {
		const first = await env.run(record(half()));
		const { id } = first.output('ERP')[0];
		const changed = await env.run(record(half() - 100, {}, 'virement'), { continueOnFail: true });
		const [item] = changed.output('ERP');
		assert.equal(item.code, 'reference_conflict');
		assert.match(String(item.error), new RegExp(`Settlement ${String(id)} with Reference`));
		assert.match(
			String(item.error),
			/amount \d+ on the settlement, \d+ here; payment method carte on the settlement, virement here/,
		);
		assert.equal((await settlements()).length, 1);
	});

	test('control, the check off: two settlements', async () => {
		await env.run(record(half(), CHECK_OFF));
		await env.run(record(half() - 100, CHECK_OFF));
		assert.equal((await settlements()).length, 2);
	});
});

describe('an invoice already paid in full', () => {
	async function payInFull(): Promise<void> {
		const paid = await env.api('POST', '/reglements', {
			facture_id: invoice.id,
			montant: invoice.total_ttc,
			mode: 'virement',
		});
		assert.equal(paid.status, 201);
	}

	test('by default: an error, code invoice_already_paid, nothing recorded', async () => {
		await payInFull();
		const result = await env.run(record(half()), { continueOnFail: true });
		const [item] = result.output('ERP');
		assert.equal(item.code, 'invoice_already_paid');
		assert.match(String(item.error), /is already paid in full: nothing was recorded/);
		assert.match(String(item.description), /If the Invoice Is Paid in Full/);
		assert.equal((await env.stats()).byPath['POST /v1/reglements'], 1, 'only payInFull');
	});

	test('Skip the Item: the item goes on, marked skipped', async () => {
		await payInFull();
		const result = await env.run(record(half(), { whenPaid: 'skip' }));
		assert.equal(result.success, true, result.error?.message);
		const [item] = result.output('ERP');
		assert.equal(item.skipped, true);
		assert.equal(item.reason, 'invoice_already_paid');
		assert.equal(item.reste_a_payer, 0);
		assert.equal((await settlements(true)).length, 1);
	});

	test('without a Reference too', async () => {
		await payInFull();
		const result = await env.run(
			{ ...record(half()), additionalFields: {} },
			{ continueOnFail: true },
		);
		assert.equal(result.output('ERP')[0].code, 'invoice_already_paid');
	});
});

describe('the ERP', () => {
	test('with no settlement list: an error naming the option, nothing recorded', async () => {
		await env.run(record(100, {}));
		reference = `${reference}-2`;
		await faults({ kind: 'status', status: 404, methods: ['GET'], paths: ['/reglements'] });
		const result = await env.run(record(100), { continueOnFail: true });
		const [item] = result.output('ERP');
		assert.equal(item.code, 'no_list_to_check');
		assert.match(
			String(item.error),
			/no settlement list to look in \(GET \/reglements answered 404\)/,
		);
		assert.match(String(item.description), /Options › Check for an Existing Settlement/);
		await faults();
		assert.equal((await settlements(true)).length, 1);
	});

	test('ignoring the list filter, with pages of 2: every page read, one settlement', async () => {
		for (const k of [1, 2, 3]) {
			await env.api('POST', '/reglements', {
				facture_id: invoice.id,
				montant: 100,
				mode: 'cheque',
				reference: `OTHER-${k}`,
			});
		}
		await configure({ listFilters: 'ignore', maxPageSize: 2 });
		assert.equal((await env.run(record(100))).output('ERP')[0].already_recorded, false);
		const again = await env.run(record(100));
		assert.equal(again.output('ERP')[0].already_recorded, true);
		await configure({ listFilters: 'apply', maxPageSize: 100 });
		assert.equal((await settlements()).length, 1);
	});
});

describe('two executions at once for one payment, in one process', () => {
	test('one settlement', async () => {
		// A first payment, so that the lookup is needed; lookups slowed so both would look first.
		await env.api('POST', '/reglements', { facture_id: invoice.id, montant: 100, mode: 'cheque' });
		await faults({ kind: 'slow', ms: 300, methods: ['GET'], paths: ['/reglements'] });
		const results = await Promise.all([env.run(record(100)), env.run(record(100))]);
		for (const r of results) assert.equal(r.success, true, r.error?.message);
		assert.deepEqual(results.map((r) => r.output('ERP')[0].already_recorded).sort(), [false, true]);
		assert.equal((await settlements()).length, 1);
	});
});
