/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// R1 faults while reading (issue 8). Workflows read every article (ERP node, Article > Get Many,
// Return All) page by page while the sandbox injects seeded faults on 10% of the GET requests:
// 429 (with Retry-After), 500, 503, connection reset, slow answer and a cut-off JSON body.
// Several workers, each with its own API key, run executions side by side. Each execution must
// return exactly the sandbox's article list (same items, same order): 0 lost, 0 duplicated,
// 0 failed executions. Then a fault that outlasts the retry budget: the execution fails with a
// clear error and never hands on a partial list, also with Continue On Fail.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials, runWorkflow } from '../harness';
import { control, listAll } from '../trigger/helpers';
import { type Figure, exactly, inLanes, note, printFigures, scale } from './common';

const SUITE = 'R1 faults while reading';
const ERP = 'n8n-nodes-erp.erp';
const ARTICLES = scale(1000, 10_000);
const PAGE_SIZE = 100;
const PAGES_PER_EXECUTION = Math.ceil(ARTICLES / PAGE_SIZE);
const EXECUTIONS = scale(25, 100);
const WORKERS = scale(5, 10);
/** Six fault kinds, each firing with this probability: 1 - (1 - p)^6 = 10% of requests. */
const FAULT_PROBABILITY = 1 - 0.9 ** (1 / 6);
const FAULT_SEED = 7;

const readAll = { resource: 'article', operation: 'getAll', returnAll: true };

interface Stats {
	requests: number;
	byStatus: Record<string, number>;
	byPath: Record<string, number>;
	faults: Record<string, number>;
}

/** Every article, read directly (no faults yet): what each execution must return. */
const readTruth = (sandbox: SandboxHandle): Promise<IDataObject[]> => listAll(sandbox, '/articles');

/** A control request that must succeed; its body. */
async function configure(
	sandbox: SandboxHandle,
	method: string,
	path: string,
	body?: unknown,
): Promise<IDataObject> {
	const answer = await control(sandbox, method, path, body);
	assert.ok(answer.status < 300, `${method} /_sandbox${path} answered ${answer.status}`);
	return answer.body as IDataObject;
}

/** A fresh read-only key per worker: each has its own rate-limit window and pacing. */
async function workerCredentials(sandbox: SandboxHandle, name: string): Promise<TestCredentials> {
	const { key } = await configure(sandbox, 'POST', '/keys', { scopes: ['articles:read'], name });
	return new TestCredentials({
		erpApi: { apiKey: String(key), environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
}

const figures: Figure[] = [];
let sandbox: SandboxHandle;

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		articles: ARTICLES,
		rateLimit: { limit: 10_000, windowSeconds: 60 },
	});
});

afterAll(async () => {
	await sandbox?.close();
	printFigures(SUITE, figures);
});

/** The main run: every execution under 10% faults returns the exact list. */
async function faultyReads(): Promise<void> {
	const started = Date.now();
	const truth = await readTruth(sandbox);
	assert.equal(truth.length, ARTICLES);
	const truthText = JSON.stringify(truth);
	const truthIds = new Set(truth.map((a) => a.id));
	const credentials = await Promise.all(
		Array.from({ length: WORKERS }, (_, w) => workerCredentials(sandbox, `r1-worker-${w}`)),
	);
	await configure(sandbox, 'POST', '/faults', {
		seed: FAULT_SEED,
		faults: [
			{ kind: 'status', status: 429, probability: FAULT_PROBABILITY, methods: ['GET'] },
			{ kind: 'status', status: 500, probability: FAULT_PROBABILITY, methods: ['GET'] },
			{ kind: 'status', status: 503, probability: FAULT_PROBABILITY, methods: ['GET'] },
			{ kind: 'reset', probability: FAULT_PROBABILITY, methods: ['GET'] },
			{ kind: 'slow', ms: 250, probability: FAULT_PROBABILITY, methods: ['GET'] },
			{ kind: 'badBody', probability: FAULT_PROBABILITY, methods: ['GET'] },
		],
	});

	let failed = 0;
	let lost = 0;
	let duplicated = 0;
	let altered = 0;
	let pagesReceived = 0;
	const errors: string[] = [];
	const executions = Array.from({ length: EXECUTIONS }, (_, n) => async (lane: number) => {
		const result = await runWorkflow({
			nodes: [{ name: 'ERP', type: ERP, parameters: readAll }],
			credentials: credentials[lane],
			workflowId: `r1-worker-${lane}`,
		});
		if (!result.success) {
			failed++;
			errors.push(`execution ${n}: ${result.error?.message}`);
			return;
		}
		const items = result.output('ERP');
		pagesReceived += Math.ceil(items.length / PAGE_SIZE);
		const ids = new Set(items.map((a) => a.id));
		duplicated += items.length - ids.size;
		lost += [...truthIds].filter((id) => !ids.has(id)).length;
		if (JSON.stringify(items) !== truthText) altered++;
	});
	await inLanes(WORKERS, executions);
	const stats = (await configure(sandbox, 'GET', '/stats')) as unknown as Stats;
	await configure(sandbox, 'POST', '/faults', { faults: [] });

	const sent = stats.byPath['GET /v1/articles'] ?? 0;
	const injected = Object.values(stats.faults ?? {}).reduce((sum, n) => sum + n, 0);
	const pages = EXECUTIONS * PAGES_PER_EXECUTION;
	const rate = sent ? injected / sent : 0;
	figures.push(
		exactly(
			SUITE,
			`pages of items handed on (${EXECUTIONS} executions x ${PAGES_PER_EXECUTION} pages)`,
			pagesReceived,
			pages,
		),
		{
			suite: SUITE,
			figure: 'GET requests sent (with retries)',
			value: sent,
			target: `> ${pages}`,
			ok: sent > pages,
		},
		{
			suite: SUITE,
			figure: `faults injected (${Object.entries(stats.faults ?? {})
				.map(([k, v]) => `${k} ${v}`)
				.join(', ')})`,
			value: `${injected} (${(rate * 100).toFixed(1)}%)`,
			target: '~10% of requests',
			ok: rate >= 0.07 && rate <= 0.13,
		},
		exactly(SUITE, 'items lost', lost, 0),
		exactly(SUITE, 'items duplicated', duplicated, 0),
		exactly(SUITE, "executions with a list other than the sandbox's", altered, 0),
		exactly(SUITE, 'failed executions', failed, 0),
		note(SUITE, 'duration of the faulty reads (s)', ((Date.now() - started) / 1000).toFixed(1)),
	);
	assert.deepEqual(errors.slice(0, 5), []);
	assert.equal(lost, 0);
	assert.equal(duplicated, 0);
	assert.equal(altered, 0);
	assert.ok(rate >= 0.07 && rate <= 0.13, `fault rate ${rate}`);
	// Every kind fired: a kind that never fired proves nothing.
	for (const kind of ['status', 'reset', 'slow', 'badBody']) {
		assert.ok(
			Object.keys(stats.faults ?? {}).some((k) => k.startsWith(kind)),
			`no ${kind} fault fired: ${JSON.stringify(stats.faults)}`,
		);
	}
	for (const status of ['429', '500', '503']) {
		assert.ok(
			(stats.byStatus[status] ?? 0) > 0,
			`no ${status} was answered: ${JSON.stringify(stats.byStatus)}`,
		);
	}
}

/**
 * Faults that outlast the retry budget, after some pages were read. Each case on its own
 * workflow: the execution fails with a clear error and no partial list reaches the output.
 */
const BUDGET_CASES: Array<{
	name: string;
	fault: IDataObject;
	message: RegExp;
	requestOptions?: { maxWaitSeconds: number };
}> = [
	{
		// Waiting one's turn after a 429 with Retry-After is not a retry: the limit is time.
		name: '429 on every turn',
		fault: { kind: 'status', status: 429 },
		message: /rate limit is still exceeded after waiting \d+ s.*Max Rate-Limit Wait of 3 s/,
		requestOptions: { maxWaitSeconds: 3 },
	},
	{
		name: '503 on every retry',
		fault: { kind: 'status', status: 503 },
		message: /server error \(HTTP 503\)/,
	},
	{
		name: 'connection reset on every retry',
		fault: { kind: 'reset' },
		message: /Could not reach the ERP API .*closed unexpectedly/,
	},
	{ name: 'cut-off body on every retry', fault: { kind: 'badBody' }, message: /not valid JSON/ },
	{
		name: '500 on every retry',
		fault: { kind: 'status', status: 500 },
		message: /server error \(HTTP 500\)/,
	},
];

async function budgetCase(
	budget: (typeof BUDGET_CASES)[number],
): Promise<{ succeeded: boolean; partial: number; clear: boolean }> {
	const erp = await startSandbox({ port: 0, articles: 1000, rateLimit: UNPACED });
	try {
		// The first pages of both runs pass (a 1 ms "slow" fault, counted), then every GET fails.
		await configure(erp, 'POST', '/faults', {
			faults: [
				{ kind: 'slow', ms: 1, count: 6, methods: ['GET'] },
				{ ...budget.fault, probability: 1, methods: ['GET'] },
			],
		});
		const [stopped, continued] = await Promise.all(
			[false, true].map(
				async (continueOnFail) =>
					await runWorkflow({
						nodes: [
							{
								name: 'ERP',
								type: ERP,
								parameters: { ...readAll, requestOptions: budget.requestOptions ?? {} },
								continueOnFail,
							},
						],
						// A key each: one's 429 does not pace the other.
						credentials: await workerCredentials(erp, `r1-budget-${continueOnFail}`),
						workflowId: `r1-budget-${budget.name}-${continueOnFail}`,
					}),
			),
		);
		const stoppedOutput = stopped.runData.ERP?.[0]?.data?.main?.[0] ?? [];
		// Continue On Fail: one error item for the one input item, and no article.
		const items = continued.output('ERP');
		const partial =
			(stoppedOutput.length > 0 ? 1 : 0) +
			(items.length !== 1 || typeof items[0].error !== 'string' ? 1 : 0);
		assert.equal(stopped.success, false, `${budget.name}: the execution succeeded`);
		assert.match(stopped.error?.message ?? '', budget.message, budget.name);
		assert.deepEqual(stoppedOutput, [], `${budget.name}: a partial list reached the output`);
		assert.equal(items.length, 1, `${budget.name}: continueOnFail output ${items.length} items`);
		assert.match(String(items[0].error), budget.message);
		return {
			succeeded: stopped.success,
			partial,
			clear: budget.message.test(stopped.error?.message ?? ''),
		};
	} finally {
		await erp.close();
	}
}

/** Each case on its own sandbox, side by side (they mostly wait on the transport's backoff). */
async function budgetExceeded(): Promise<void> {
	const started = Date.now();
	// Every case at every size: each exhaustion path (429, 5xx, reset, cut-off body) has its own code.
	const cases = BUDGET_CASES;
	const outcomes = await Promise.allSettled(cases.map(budgetCase));
	const done = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
	figures.push(
		exactly(
			SUITE,
			`retry budget exceeded (${cases.map((c) => c.name).join('; ')}): executions that succeeded`,
			done.filter((o) => o.succeeded).length,
			0,
		),
		exactly(
			SUITE,
			'retry budget exceeded: partial lists handed on (with and without Continue On Fail)',
			done.reduce((sum, o) => sum + o.partial, 0),
			0,
		),
		exactly(
			SUITE,
			'retry budget exceeded: cases without a clear error',
			cases.length - done.filter((o) => o.clear).length,
			0,
		),
		exactly(
			SUITE,
			'retry budget exceeded: cases that ran to the end',
			done.length,
			BUDGET_CASES.length,
		),
		note(
			SUITE,
			'duration of the retry-budget cases (s)',
			((Date.now() - started) / 1000).toFixed(1),
		),
	);
	for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
}

describe(SUITE, () => {
	it('10% seeded faults on GET: every execution returns the exact list; a fault past the retry budget fails the execution with no partial list', async () => {
		// Side by side: the budget cases mostly wait on the transport's backoff.
		await Promise.all([faultyReads(), budgetExceeded()]);
	}, 180_000);
});
