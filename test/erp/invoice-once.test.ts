/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Invoice › Issue with an External Reference: at most one invoice per reference against an ERP that
// ignores Idempotency-Key (the sandbox's `idempotencyKeys: 'ignore'`): a POST committed then
// answered 502 and retried by n8n's Retry On Fail, a re-run, a changed order, an ERP ignoring the
// list filter and paging, an ERP with no invoice list, two executions at once. Each promise has a
// control that makes two invoices (the check turned off, or two processes).
import assert from 'node:assert/strict';
import { beforeAll, beforeEach, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEMO_KEYS, sandboxRequests, UNPACED } from '../../sandbox';
import { runWorkflow, TestCredentials } from '../harness';
import { byId, byReference, ERP, useErpTestEnv } from './setup';

const env = useErpTestEnv({ rateLimit: UNPACED });
let clientId: string;
let otherClientId: string;
let reference: string;

beforeAll(async () => {
	const clients = await env.list('/clients?limit=2');
	[clientId, otherClientId] = clients.map((c) => String(c.id));
});

beforeEach(async () => {
	await env.reset();
	await configure({ idempotencyKeys: 'ignore' });
	reference = `ORDER-${Math.random().toString(36).slice(2, 8)}`;
});

const configure = async (config: IDataObject) => await env.control('config', config);
const faults = async (...list: IDataObject[]) => await env.control('faults', { faults: list });

const committedThen502 = {
	kind: 'failAfterCommit',
	status: 502,
	count: 1,
	methods: ['POST'],
	paths: ['/factures'],
};

/** Invoices in the sandbox with `reference` (read with the filter, which the sandbox applies by default). */
async function invoicesFor(ref = reference): Promise<IDataObject[]> {
	await configure({ listFilters: 'apply' });
	return (
		await env.list(`/factures?reference_externe=${encodeURIComponent(ref)}&limit=100`)
	).filter((f) => f.reference_externe === ref);
}

function issue(quantite = 2, options: INodeParameters = {}, client = clientId): INodeParameters {
	return {
		resource: 'invoice',
		operation: 'create',
		clientId: byId(client),
		linesMode: 'define',
		lines: { line: [{ articleId: byReference('REF-000001'), quantite, prix_ht: '' }] },
		additionalFields: { reference_externe: reference },
		options,
	};
}

const CHECK_OFF = { checkExisting: false };

async function issueWithRetry(parameters: INodeParameters, workflowId: string) {
	return await env.runNodes(
		[{ name: 'ERP', parameters, retryOnFail: true, maxTries: 3, waitBetweenTries: 1 }],
		{ workflowId },
	);
}

describe('a POST committed then answered 502, retried by Retry On Fail', () => {
	test('one invoice: the retry finds it and hands it on with already_issued: true', async () => {
		await faults(committedThen502);
		const result = await issueWithRetry(issue(), 'once-502');
		assert.equal(result.success, true, result.error?.message);
		const [output] = result.output('ERP');
		assert.equal(output.already_issued, true);
		assert.equal(output.reference_externe, reference);
		const invoices = await invoicesFor();
		assert.equal(invoices.length, 1);
		assert.equal(output.id, invoices[0].id);
		const stats = await env.stats();
		assert.equal(stats.byStatus['502'], 1, 'the first try was answered 502');
		assert.equal(stats.byPath['POST /v1/factures'], 1);
	});

	// With the check off, Retry On Fail does not send a write the ERP may have applied (issue 40,
	// nodes/Erp/actions/retries.ts): the run fails saying so. The control's second invoice comes
	// from what is left, a re-run of the execution against an ERP that ignores the key.
	test('control, the check off: Retry On Fail stops, saying the ERP may have applied it; a re-run then makes two invoices', async () => {
		await faults(committedThen502);
		const result = await issueWithRetry(issue(2, CHECK_OFF), 'once-502-off');
		assert.equal(result.success, false);
		assert.match(
			String((result.error as { description?: string } | undefined)?.description),
			/may have applied it/,
		);
		assert.equal((await invoicesFor()).length, 1);
		const rerun = await env.runNodes([{ name: 'ERP', parameters: issue(2, CHECK_OFF) }], {
			workflowId: 'once-502-off',
		});
		assert.equal(rerun.success, true, rerun.error?.message);
		assert.equal((await invoicesFor()).length, 2);
	});
});

describe('a re-run of the execution', () => {
	test('one invoice: the second run gives the first invoice back, nothing posted', async () => {
		const first = await env.run(issue(), { workflowId: 'once-rerun' });
		assert.equal(first.success, true, first.error?.message);
		assert.equal(first.output('ERP')[0].already_issued, false);
		const second = await env.run(issue(), { workflowId: 'once-rerun' });
		assert.equal(second.success, true, second.error?.message);
		const [again] = second.output('ERP');
		assert.equal(again.already_issued, true);
		assert.equal(again.id, first.output('ERP')[0].id);
		assert.equal((await invoicesFor()).length, 1);
		assert.equal((await env.stats()).byPath['POST /v1/factures'], 1);
	});

	test('control, the check off: two invoices', async () => {
		await env.run(issue(2, CHECK_OFF), { workflowId: 'once-rerun-off' });
		await env.run(issue(2, CHECK_OFF), { workflowId: 'once-rerun-off' });
		assert.equal((await invoicesFor()).length, 2);
	});
});

describe('a changed order with the same reference', () => {
	test('a conflict error naming the invoice and what differs; one invoice', async () => {
		const first = await env.run(issue(2));
		assert.equal(first.success, true, first.error?.message);
		const { id, numero } = first.output('ERP')[0];
		const changed = await env.run(issue(3, {}, otherClientId));
		assert.equal(changed.success, false);
		const message = String(changed.error?.message);
		assert.ok(message.includes(`${String(numero)} (${String(id)})`), message);
		assert.match(message, /quantity of REF-000001 \(art_\d+\): 2 on the invoice, 3 here/);
		assert.ok(
			message.includes(`client ${clientId} on the invoice, ${otherClientId} here`),
			message,
		);
		assert.match(
			String((changed.error as { description?: unknown } | undefined)?.description),
			/Check for an Existing Invoice/,
		);
		assert.equal((await invoicesFor()).length, 1);
	});

	test('as an error item (On Error: Continue): code reference_conflict, the invoice in details', async () => {
		const first = await env.run(issue(2));
		const { id, numero } = first.output('ERP')[0];
		const changed = await env.run(issue(3), { continueOnFail: true });
		assert.equal(changed.success, true);
		const [item] = changed.output('ERP');
		assert.equal(item.code, 'reference_conflict');
		assert.equal(item.httpCode, null);
		assert.deepEqual((item.details as IDataObject[])[0], {
			field: 'reference_externe',
			message: `Already used by invoice ${String(numero)} (${String(id)})`,
			id,
			numero,
		});
		assert.equal((item.details as IDataObject[])[1].field, 'lignes');
		assert.equal((await invoicesFor()).length, 1);
	});

	test('a price the order gives is compared; a price left to the ERP is not', async () => {
		const withPrice = (prix_ht: string): INodeParameters => ({
			...issue(),
			lines: { line: [{ articleId: byReference('REF-000001'), quantite: 2, prix_ht }] },
		});
		assert.equal((await env.run(withPrice('1500'))).success, true);
		const same = await env.run(withPrice('1500'));
		assert.equal(same.output('ERP')[0].already_issued, true);
		const other = await env.run(withPrice('1600'));
		assert.match(
			String(other.error?.message),
			/unit price of REF-000001 .*: 1500 on the invoice, 1600 here/,
		);
		assert.equal((await env.run(issue(2))).output('ERP')[0].already_issued, true);
	});

	test('control, the check off: two invoices with the reference', async () => {
		await env.run(issue(2, CHECK_OFF));
		await env.run(issue(3, CHECK_OFF));
		assert.equal((await invoicesFor()).length, 2);
	});
});

describe('reading tolerantly', () => {
	test('an ERP ignoring the list filter, with pages of 2: every page read, one invoice', async () => {
		await configure({ listFilters: 'ignore', maxPageSize: 2 });
		const first = await env.run(issue());
		assert.equal(first.success, true, first.error?.message);
		await configure({ listFilters: 'ignore' });
		const second = await env.run(issue());
		assert.equal(second.success, true, second.error?.message);
		assert.equal(second.output('ERP')[0].already_issued, true);
		const reads = (await sandboxRequests(env.sandbox.url)).filter(
			(r) => r.method === 'GET' && r.path === '/v1/factures' && r.status === 200,
		);
		assert.ok(
			reads.some((r) => r.query.cursor !== undefined),
			'the node followed the cursor',
		);
		await configure({ maxPageSize: 100 });
		assert.equal((await invoicesFor()).length, 1);
	});

	test('an ERP with no invoice list: an error naming the option, nothing posted; with the check off it issues', async () => {
		await faults({ kind: 'status', status: 404, methods: ['GET'], paths: ['/factures'] });
		const refused = await env.run(issue());
		assert.equal(refused.success, false);
		assert.match(
			String(refused.error?.message),
			/no invoice list to look in \(GET \/factures answered 404\)/,
		);
		assert.match(
			String((refused.error as { description?: unknown } | undefined)?.description),
			/Options › Check for an Existing Invoice/,
		);
		assert.equal((await env.stats()).byPath['POST /v1/factures'], undefined);
		const unguarded = await env.run(issue(2, CHECK_OFF));
		assert.equal(unguarded.success, true, unguarded.error?.message);
		await faults();
		assert.equal((await invoicesFor()).length, 1);
	});

	test('without an External Reference: no lookup, as before', async () => {
		const parameters = { ...issue(), additionalFields: {} };
		const result = await env.run(parameters);
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('ERP')[0].already_issued, undefined);
		assert.equal((await env.stats()).byPath['GET /v1/factures'], undefined);
	});
});

describe('two executions at once for one order', () => {
	/** Lookups slowed so that both executions look before either writes, unless one waits. */
	const slowLookups = { kind: 'slow', ms: 300, methods: ['GET'], paths: ['/factures'] };

	/** The same workflow run twice at once, through two credentials (two base URLs: `hosts`). */
	async function twoAtOnce(hosts: [string, string], options: INodeParameters = {}) {
		const port = new URL(env.sandbox.url).port;
		const run = async (host: string) =>
			await runWorkflow({
				nodes: [{ name: 'ERP', type: ERP, parameters: issue(2, options) }],
				credentials: new TestCredentials({
					erpApi: {
						apiKey: DEMO_KEYS.full,
						environment: 'sandbox',
						baseUrl: `http://${host}:${port}/v1`,
					},
				}),
				workflowId: 'once-concurrent',
			});
		return await Promise.all(hosts.map(run));
	}

	test('in one process: one invoice, the second execution gets it back', async () => {
		await faults(slowLookups);
		const results = await twoAtOnce(['127.0.0.1', '127.0.0.1']);
		for (const r of results) assert.equal(r.success, true, r.error?.message);
		assert.deepEqual(results.map((r) => r.output('ERP')[0].already_issued).sort(), [false, true]);
		assert.equal((await invoicesFor()).length, 1);
	});

	/** Both lookups held until both arrived: the two executions look before either writes. */
	const lookTogether = {
		kind: 'barrier',
		parties: 2,
		count: 2,
		methods: ['GET'],
		paths: ['/factures'],
	};

	test('measured: two processes (two base URLs, so nothing shared) against an ERP ignoring the key: two invoices', async () => {
		await faults(lookTogether);
		await twoAtOnce(['127.0.0.1', 'localhost']);
		assert.equal((await invoicesFor()).length, 2);
	});

	test('two processes against an ERP keeping the key: one invoice (the automatic key is the same)', async () => {
		await configure({ idempotencyKeys: 'keep' });
		await faults(lookTogether);
		const results = await twoAtOnce(['127.0.0.1', 'localhost']);
		for (const r of results) assert.equal(r.success, true, r.error?.message);
		assert.equal((await invoicesFor()).length, 1);
	});
});
