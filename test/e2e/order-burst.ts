/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Bursts of concurrent orders through real n8n's order-to-invoice example, and their checks: every
 * order answered 200, every execution of the run's workflow finished with success, 8 accepted
 * ERP requests per order, each order invoiced exactly once and paid. Used by rate-limits.test.ts,
 * flash-sale.test.ts and nginx-limit.test.ts.
 *
 * `useOrderBurstRuns` runs a file's bursts side by side in the run's shared n8n (issue 38; beside
 * the other files': no two files share a workflow id, a webhook path or a sandbox): each run has its
 * own sandbox (a sandbox's rate limiter is global to it, set by prepareBurst), its own credential
 * pointing at that sandbox (or at a limiter in front of it), and its own copy of the example (own
 * workflow id, own production webhook path) using that credential. The node's pacer keys its
 * state by credential type, base URL and API key (nodes/shared/transport/credentials.ts, pacer.ts
 * `paceKey`), so runs against different sandboxes (different base URLs) never share a pace, even
 * with the same demo key; nor a page size learnt (pageSize.ts: per credential and base URL).
 * What must not meet the same step of another run goes one run at a time (OneAtATime).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll } from '@jest/globals';

import { startSandbox } from '../../sandbox';
import { checkBurst, postOrders, sandboxStats } from '../../scripts/order-burst';
import type { BurstPlan, BurstReport } from '../../scripts/order-burst';
import { demoCredential, EXAMPLE_IDS, loadExamples, wireExample } from '../../scripts/examples';
import type { Workflow } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import {
	type CredentialImport,
	keepFilesOnFailure,
	type N8nRest,
} from '../../scripts/n8n-instance';
import { expectCount, expectRuns, readRuns, type Run } from './count';
import { MINUTE, ownCopy, startE2e, waitFor, type E2e, type Sandbox } from './helpers';

/** The order-to-invoice example, wired for a test (no chat), and its production webhook's path. */
export function orderExample(): { workflow: Workflow; webhookPath: string } {
	const { workflow } = loadExamples().find(
		({ workflow: w }) => w.id === EXAMPLE_IDS.orderToInvoice,
	)!;
	return {
		workflow: wireExample(workflow, { chatUrl: 'http://127.0.0.1:9/unused' }),
		webhookPath: webhookPathOf(workflow),
	};
}

function webhookPathOf(workflow: Workflow): string {
	const webhook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
	return String(webhook.parameters.path);
}

/** `workflow` with every node's API key credential (`erpApi`) replaced by `ref`. */
function withErpCredential(workflow: Workflow, ref: { id: string; name: string }): Workflow {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			const credentials = node.credentials as Record<string, unknown> | undefined;
			return credentials?.erpApi ? { ...node, credentials: { ...credentials, erpApi: ref } } : node;
		}),
	};
}

/**
 * Copy `id` of the order example (own workflow id, own production webhook path) on a credential of
 * its own (the demo key) pointing at `apiUrl`: the workflow, the credential, the webhook's path.
 */
export function ownOrderExample(
	id: string,
	apiUrl: string,
	label: string,
): { workflow: Workflow; credential: CredentialImport; webhookPath: string } {
	const ref = { id: `${id}-key`, name: `ERP sandbox of ${label} (demo key)` };
	const workflow = withErpCredential(ownCopy(orderExample().workflow, id), ref);
	return {
		workflow,
		credential: { ...demoCredential(apiUrl), ...ref },
		webhookPath: webhookPathOf(workflow),
	};
}

/** Where a burst goes: n8n, the workflow whose webhook takes the orders, the ERP it calls. */
export type BurstTarget = {
	rest: N8nRest;
	/** The whole production URL of the workflow's webhook, as the shop calls it. */
	webhookUrl: string;
	/** The workflow: its executions are the burst's alone. */
	workflowId: string;
	sandbox: Sandbox;
	/** Runs the posting of the orders until n8n has recorded their executions (see OneAtATime). */
	oneAtATime?: OneAtATime;
};

/**
 * Runs steps one after another across a file's runs: what must not meet the same step of another
 * run (a control's 110 requests at once; n8n recording a burst's 30 executions, which on SQLite
 * timed out on its write lock under load with 90 arriving at once: 500 "There was a problem
 * executing the workflow").
 */
export type OneAtATime = <T>(step: () => Promise<T>) => Promise<T>;

function oneAtATime(): OneAtATime {
	let last: Promise<unknown> = Promise.resolve();
	return async (step) => {
		const done = last.then(step);
		last = done.catch(() => undefined);
		return await done;
	};
}

/** The burst's ERP requests, those answered 429, its report, and the run's executions. */
export type BurstTraffic = { requests: number; refused: number; report: BurstReport; runs: Run[] };

/** Posts the plan's orders to the target's webhook, then checks them (the workflow's only burst). */
export async function burstThroughN8n(
	target: BurstTarget,
	plan: BurstPlan,
	name: string,
): Promise<BurstTraffic> {
	const { sandbox } = target;
	const orders = plan.orders.length;
	const before = await sandboxStats(sandbox);
	let posting: ReturnType<typeof postOrders> | undefined;
	const post = async () => {
		posting = postOrders(target.webhookUrl, plan);
		let answered = false;
		void posting.then(() => (answered = true));
		// Until n8n lists every order's execution (or all are answered; at most 5 minutes).
		await waitFor(
			`n8n recording the ${name} burst's executions`,
			async () =>
				answered || (await readRuns(target.rest, target.workflowId)).count >= orders || undefined,
			5 * MINUTE,
		).catch(() => undefined);
	};
	await (target.oneAtATime ?? (async (step) => await step()))(post);
	const answers = await posting!;
	const resent = answers.reduce((sum, a) => sum + a.resent, 0);
	if (resent > 0) process.stdout.write(`# ${name}: ${resent} resends of an order answered 503\n`);
	assert.deepEqual(
		answers.filter((a) => a.status !== 200),
		[],
		`${name}: every order is answered 200`,
	);
	const runs = await expectRuns(target.rest, target.workflowId, orders);
	assert.deepEqual(
		runs.filter((r) => r.status !== 'success'),
		[],
		`${name}: no execution failed`,
	);
	// 8 accepted requests per order, no more (a duplicate write would add some).
	const traffic = await expectCount(
		`accepted ERP requests of the ${name} burst`,
		orders * 8,
		async () => {
			const now = await sandboxStats(sandbox);
			const requests = now.requests - before.requests;
			const refused = (now.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0);
			return { count: requests - refused, detail: { requests, refused } };
		},
	);
	const report = await expectCount(
		`orders of the ${name} burst invoiced exactly once and paid`,
		orders,
		async () => {
			const r = await checkBurst(sandbox, plan, before);
			return { count: r.settled, detail: r };
		},
		{ pollMs: 1000 },
	);
	assert.equal(report!.missing, 0);
	assert.equal(report!.duplicate, 0);
	return { requests: traffic!.requests, refused: traffic!.refused, report: report!, runs };
}

/** One run of a file, as its `run` function gets it. */
export type OrderRun = {
	/** The run's own sandbox: its rate limiter and counters are the run's alone. */
	sandbox: Sandbox;
	/** burstThroughN8n on the run's own copy of the example (its orders posted one run at a time). */
	burst(plan: BurstPlan, name: string): Promise<BurstTraffic>;
	/** The file's OneAtATime, e.g. for a control. */
	oneAtATime: OneAtATime;
};

/**
 * For a flash-sale file's describe block: the run's shared n8n (its own when the file runs
 * outside jest's run) with `count` copies of the order-to-invoice example published, copy i (id
 * `<idPrefix>0i`) on a credential of its own pointing at run i's own sandbox, or at
 * `apiUrl(sandbox, i)` (e.g. a limiter in front of it). Once they are published, beforeAll starts
 * `run` for every run at once; `outcome(i)` (for run i's test) is what run i resolved with, or its
 * error.
 */
export function useOrderBurstRuns<T>(options: {
	folderPrefix: string;
	log: Log;
	/** 14 characters: n8n's workflow ids here have 16. */
	idPrefix: string;
	count: number;
	apiUrl?: (sandbox: Sandbox, index: number) => Promise<string>;
	run: (run: OrderRun, index: number) => Promise<T>;
}) {
	const { folderPrefix, log, idPrefix } = options;
	assert.equal(idPrefix.length, 14, `workflow id prefix ${idPrefix}: 14 characters`);
	const files = keepFilesOnFailure(log);
	const sandboxes: Sandbox[] = [];
	let e2e: E2e | undefined;
	let outcomes: Array<Promise<T>> | undefined;
	const alone = oneAtATime();

	beforeAll(async () => {
		const runs: Array<{ sandbox: Sandbox; id: string } & ReturnType<typeof ownOrderExample>> = [];
		for (let index = 0; index < options.count; index++) {
			const sandbox = await startSandbox({ port: 0 });
			sandboxes.push(sandbox);
			const id = `${idPrefix}${String(index).padStart(2, '0')}`;
			const apiUrl = (await options.apiUrl?.(sandbox, index)) ?? sandbox.baseUrl;
			runs.push({ sandbox, id, ...ownOrderExample(id, apiUrl, `run ${index}`) });
		}
		e2e = await startE2e({
			folderPrefix,
			log,
			files,
			shared: true,
			credentials: async () => runs.map((r) => r.credential),
			workflows: () => runs.map((r) => r.workflow),
		});
		for (const { id } of runs) await e2e.rest.activate(id);
		const n8n = e2e;
		outcomes = runs.map(
			async ({ sandbox, id, webhookPath }, index) =>
				await options.run(
					{
						sandbox,
						oneAtATime: alone,
						burst: async (plan, name) =>
							await burstThroughN8n(
								{
									rest: n8n.rest,
									webhookUrl: `${n8n.n8n!.url}/webhook/${webhookPath}`,
									workflowId: id,
									sandbox,
									oneAtATime: alone,
								},
								plan,
								name,
							),
					},
					index,
				),
		);
		// Each is awaited by its run's test: no unhandled rejection meanwhile.
		for (const outcome of outcomes) outcome.catch(() => undefined);
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
	}, 10 * MINUTE);

	return {
		files,
		/** The file's view of n8n (its own sandbox is used by no run). */
		e2e: (): E2e => {
			assert.ok(e2e, 'n8n is started in beforeAll');
			return e2e;
		},
		oneAtATime: alone,
		outcome: async (index: number): Promise<T> => {
			assert.ok(outcomes, 'the runs are started in beforeAll');
			return await outcomes[index];
		},
	};
}
