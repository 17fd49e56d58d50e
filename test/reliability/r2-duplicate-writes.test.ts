/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// R2 duplicate writes (issue 8). Orders become invoices through the ERP node (Invoice > Create,
// `reference_externe` = the order number) while the sandbox commits some POSTs and then answers
// 500 (`failAfterCommit`) and drops the connection of others before answering (`reset`).
// Two ways of running them again, as users do:
// - Continue On Fail, then a manual re-run of the same workflow with the same input;
// - Retry On Fail (n8n re-runs the whole node), then a manual re-run if the tries ran out.
// Target: 0 duplicate invoices counted in the sandbox by `reference_externe`; every failure
// surfaced (an error item or a failed execution), never dropped; every order invoiced in the end.
// A control run with idempotency keys and the lookup by reference turned off shows that the
// count does see duplicates.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEMO_KEYS, UNPACED, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials, runWorkflow } from '../harness';
import type { RunWorkflowResult } from '../harness';
import { api, control, listAll } from '../trigger/helpers';
import { type Figure, exactly, inLanes, note, printFigures, scale } from './common';
import { byId } from '../erp/setup';

const SUITE = 'R2 duplicate writes';
const ERP = 'n8n-nodes-erp.erp';
/** Continue On Fail: batches of this many orders per execution. */
const COF_BATCH = 20;
const COF_BATCHES = scale(2, 40);
/** Retry On Fail re-runs the whole node: small batches, or a 10% fault rate would never let one through. */
const ROF_BATCH = 5;
const ROF_BATCHES = scale(3, 40);
const MAX_RERUNS = 15;
const WORKERS = 4;

const FAULTS = [
	{
		kind: 'failAfterCommit',
		status: 500,
		probability: 0.1,
		methods: ['POST'],
		paths: ['/factures'],
	},
	{ kind: 'reset', probability: 0.05, methods: ['POST'], paths: ['/factures'] },
];

let sandbox: SandboxHandle;
let credentials: TestCredentials;
let clientId: string;
let articleId: string;
const figures: Figure[] = [];

/** Every invoice in the sandbox, per `reference_externe` (read without faults). */
async function invoicesByReference(): Promise<Map<string, number>> {
	const counts = new Map<string, number>();
	for (const invoice of await listAll(sandbox, '/factures')) {
		const reference = String(invoice.reference_externe ?? '');
		counts.set(reference, (counts.get(reference) ?? 0) + 1);
	}
	return counts;
}

function createInvoice(options: { idempotency?: 'off' } = {}): INodeParameters {
	return {
		resource: 'invoice',
		operation: 'create',
		clientId: byId(clientId),
		linesMode: 'define',
		lines: { line: [{ articleId: byId(articleId), quantite: 1, prix_ht: '' }] },
		additionalFields: { reference_externe: '={{ $json.order }}' },
		...(options.idempotency
			? {
					requestOptions: { idempotency: options.idempotency },
					// Without the key, the lookup by reference alone (issue 41) keeps one invoice too.
					options: { checkExisting: false },
				}
			: {}),
	};
}

const orders = (prefix: string, batch: number, size: number) =>
	Array.from({ length: size }, (_, i) => ({
		order: `${prefix}-${batch}-${String(i).padStart(3, '0')}`,
	}));

interface Tally {
	executions: number;
	errorItems: number;
	failedExecutions: number;
	dropped: number;
	unclear: number;
	unfinished: number;
}

const newTally = (): Tally => ({
	executions: 0,
	errorItems: 0,
	failedExecutions: 0,
	dropped: 0,
	unclear: 0,
	unfinished: 0,
});

/** The error text a user sees for a write whose answer was lost must say what to do. */
const CLEAR_ERROR = /server error \(HTTP 500\)|Could not reach the ERP API/;

/** Checks one execution's output item by item: an invoice for its order, or an error item. */
function account(
	result: RunWorkflowResult,
	input: Array<{ order: string }>,
	tally: Tally,
): boolean {
	tally.executions++;
	if (!result.success) {
		tally.failedExecutions++;
		if (!CLEAR_ERROR.test(result.error?.message ?? '')) tally.unclear++;
		return false;
	}
	const items = result.items('ERP');
	let complete = true;
	input.forEach((entry, index) => {
		const out = items.filter(
			(item) => (item.pairedItem as { item: number } | undefined)?.item === index,
		);
		if (out.length !== 1) {
			tally.dropped++;
			complete = false;
			return;
		}
		const json = out[0].json;
		if (typeof json.error === 'string') {
			tally.errorItems++;
			if (!CLEAR_ERROR.test(json.error)) tally.unclear++;
			complete = false;
		} else if (json.reference_externe !== entry.order || typeof json.id !== 'string') {
			tally.dropped++;
			complete = false;
		}
	});
	return complete;
}

beforeAll(async () => {
	// A limit the nodes read in the headers, too high to refuse anything: no pacing in the way.
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED, articles: 50 });
	credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
	clientId = String(
		((await api(sandbox, 'GET', '/clients?limit=1')).body.data as IDataObject[])[0].id,
	);
	const article = await api(sandbox, 'POST', '/articles', {
		reference: 'R2-STOCK',
		designation: 'Reliability article',
		prix_ht: 1000,
		tva: 2000,
		stock: 1_000_000,
	});
	assert.equal(article.status, 201);
	articleId = String(article.body.id);
});

afterAll(async () => {
	await sandbox?.close();
	printFigures(SUITE, figures);
});

describe(SUITE, () => {
	it('failAfterCommit and dropped connections, re-run with Continue On Fail and with Retry On Fail: no duplicate invoice, no failure dropped', async () => {
		await control(sandbox, 'POST', '/faults', { seed: 11, faults: FAULTS });
		const cof = newTally();
		const rof = newTally();

		// Continue On Fail: error items; the user re-runs the same workflow with the same input.
		const cofJobs = Array.from({ length: COF_BATCHES }, (_, b) => async () => {
			const input = orders('R2-COF', b, COF_BATCH);
			for (let run = 0; run < MAX_RERUNS; run++) {
				const result = await runWorkflow({
					nodes: [{ name: 'ERP', type: ERP, parameters: createInvoice(), continueOnFail: true }],
					input,
					credentials,
					workflowId: `r2-cof-${b}`,
				});
				if (account(result, input, cof)) return;
			}
			cof.unfinished++;
		});
		// Retry On Fail: n8n runs the whole node again (up to 5 tries); then a manual re-run.
		const rofJobs = Array.from({ length: ROF_BATCHES }, (_, b) => async () => {
			const input = orders('R2-ROF', b, ROF_BATCH);
			for (let run = 0; run < MAX_RERUNS; run++) {
				const result = await runWorkflow({
					nodes: [
						{
							name: 'ERP',
							type: ERP,
							parameters: createInvoice(),
							retryOnFail: true,
							maxTries: 5,
							waitBetweenTries: 1,
						},
					],
					input,
					credentials,
					workflowId: `r2-rof-${b}`,
				});
				if (account(result, input, rof)) return;
			}
			rof.unfinished++;
		});
		await inLanes(WORKERS, [...cofJobs, ...rofJobs]);

		const stats = (await control(sandbox, 'GET', '/stats')).body as {
			faults?: Record<string, number>;
			byPath: Record<string, number>;
		};
		await control(sandbox, 'POST', '/faults', { faults: [] });
		const counts = await invoicesByReference();
		const expected = [
			...Array.from({ length: COF_BATCHES }, (_, b) => orders('R2-COF', b, COF_BATCH)).flat(),
			...Array.from({ length: ROF_BATCHES }, (_, b) => orders('R2-ROF', b, ROF_BATCH)).flat(),
		].map((o) => o.order);
		const duplicates = expected.reduce(
			(sum, order) => sum + Math.max(0, (counts.get(order) ?? 0) - 1),
			0,
		);
		const missing = expected.filter((order) => !counts.has(order)).length;
		const injected = (stats.faults?.failAfterCommit ?? 0) + (stats.faults?.reset ?? 0);
		const posts = stats.byPath['POST /v1/factures'] ?? 0;

		figures.push(
			exactly(
				SUITE,
				`orders invoiced in the sandbox (Continue On Fail ${COF_BATCHES}x${COF_BATCH}, Retry On Fail ${ROF_BATCHES}x${ROF_BATCH})`,
				expected.filter((order) => counts.has(order)).length,
				COF_BATCHES * COF_BATCH + ROF_BATCHES * ROF_BATCH,
			),
			{
				suite: SUITE,
				figure: `POSTs sent / faults injected (failAfterCommit ${stats.faults?.failAfterCommit ?? 0}, reset ${stats.faults?.reset ?? 0})`,
				value: `${posts} / ${injected}`,
				target: '> 0 faults',
				ok: injected > 0,
			},
			note(
				SUITE,
				'executions (incl. re-runs): Continue On Fail / Retry On Fail',
				`${cof.executions} / ${rof.executions}`,
			),
			exactly(SUITE, 'duplicate invoices in the sandbox (by reference_externe)', duplicates, 0),
			note(SUITE, 'Continue On Fail: error items (each re-run later)', cof.errorItems),
			exactly(
				SUITE,
				'failures dropped silently (input item without invoice or error)',
				cof.dropped + rof.dropped,
				0,
			),
			exactly(SUITE, 'failures without a clear error message', cof.unclear + rof.unclear, 0),
			note(
				SUITE,
				'Retry On Fail: executions failed after 5 tries (surfaced, then re-run)',
				rof.failedExecutions,
			),
			exactly(
				SUITE,
				'orders never invoiced after re-runs',
				missing + cof.unfinished + rof.unfinished,
				0,
			),
		);

		assert.ok(injected > 0, 'no fault fired');
		assert.ok(
			cof.errorItems + rof.failedExecutions > 0,
			'no failure was surfaced although faults fired',
		);
		assert.equal(duplicates, 0, `${duplicates} duplicate invoices`);
		assert.equal(cof.dropped + rof.dropped, 0);
		assert.equal(cof.unclear + rof.unclear, 0);
		assert.equal(missing + cof.unfinished + rof.unfinished, 0);
	});

	it('every fault on a Continue On Fail POST comes back as exactly one error item', async () => {
		// Faults on the next POSTs only, counted: each must surface as one error item.
		await control(sandbox, 'POST', '/faults', {
			faults: [
				{ kind: 'failAfterCommit', status: 500, count: 3, methods: ['POST'], paths: ['/factures'] },
				{ kind: 'reset', count: 2, methods: ['POST'], paths: ['/factures'] },
			],
		});
		const input = orders('R2-EXACT', 0, 10);
		const result = await runWorkflow({
			nodes: [{ name: 'ERP', type: ERP, parameters: createInvoice(), continueOnFail: true }],
			input,
			credentials,
			workflowId: 'r2-exact',
		});
		await control(sandbox, 'POST', '/faults', { faults: [] });
		const tally = newTally();
		account(result, input, tally);
		figures.push(exactly(SUITE, '5 counted faults on 10 POSTs: error items', tally.errorItems, 5));
		assert.equal(tally.errorItems, 5);
		assert.equal(tally.dropped, 0);
		const errors = result.output('ERP').filter((json) => typeof json.error === 'string');
		// The 500 after commit tells the user that a re-run will not create it twice.
		assert.ok(
			errors.some((json) => /same Idempotency-Key/.test(String(json.description ?? ''))),
			JSON.stringify(errors[0]),
		);
	});

	it('control: with idempotency keys and the existing-invoice check off, the same faults and re-runs do create duplicates (the count sees them)', async () => {
		await control(sandbox, 'POST', '/faults', {
			faults: [
				{ kind: 'failAfterCommit', status: 500, count: 3, methods: ['POST'], paths: ['/factures'] },
			],
		});
		const input = orders('R2-OFF', 0, 5);
		for (let run = 0; run < 2; run++) {
			await runWorkflow({
				nodes: [
					{
						name: 'ERP',
						type: ERP,
						parameters: createInvoice({ idempotency: 'off' }),
						continueOnFail: true,
					},
				],
				input,
				credentials,
				workflowId: 'r2-off',
			});
		}
		await control(sandbox, 'POST', '/faults', { faults: [] });
		const counts = await invoicesByReference();
		const duplicates = input.reduce(
			(sum, { order }) => sum + Math.max(0, (counts.get(order) ?? 0) - 1),
			0,
		);
		figures.push({
			suite: SUITE,
			figure: 'control, keys off: duplicates seen',
			value: duplicates,
			target: '> 0',
			ok: duplicates > 0,
		});
		assert.ok(duplicates > 0, 'the control run created no duplicate: the count would not see one');
	});
});
