/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * A burst of concurrent orders through real n8n's order-to-invoice example, and its checks: every
 * order answered 200, every execution (of this burst and the earlier ones) finished with success,
 * 8 accepted ERP requests per order, each order invoiced exactly once and paid. Used by
 * rate-limits.test.ts, flash-sale.test.ts and nginx-limit.test.ts.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll } from '@jest/globals';

import { checkBurst, postOrders, sandboxStats } from '../../scripts/order-burst';
import type { BurstPlan, BurstReport } from '../../scripts/order-burst';
import { EXAMPLE_IDS, loadExamples, wireExample } from '../../scripts/examples';
import type { Workflow } from '../../scripts/examples';
import { keepFilesOnFailure } from '../../scripts/n8n-instance';
import { expectCount, expectRuns } from './count';
import { MINUTE, startE2e, type E2e } from './helpers';

/** The order-to-invoice example, wired for a test (no chat), and its production webhook's path. */
export function orderExample(): { workflow: Workflow; webhookPath: string } {
	const { workflow } = loadExamples().find(
		({ workflow: w }) => w.id === EXAMPLE_IDS.orderToInvoice,
	)!;
	const webhook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
	return {
		workflow: wireExample(workflow, { chatUrl: 'http://127.0.0.1:9/unused' }),
		webhookPath: String(webhook.parameters.path),
	};
}

/** Posts the plan's orders to `webhookUrl`; `runsBefore`: the example's executions already made. */
export async function burstThroughN8n(
	e2e: E2e,
	webhookUrl: string,
	plan: BurstPlan,
	runsBefore: number,
	name: string,
): Promise<{ requests: number; refused: number; report: BurstReport }> {
	const sandbox = e2e.sandbox;
	const orders = plan.orders.length;
	const before = await sandboxStats(sandbox);
	const answers = await postOrders(webhookUrl, plan);
	assert.deepEqual(
		answers.filter((a) => a.status !== 200),
		[],
		'every order is answered 200',
	);
	const runs = await expectRuns(e2e.rest, EXAMPLE_IDS.orderToInvoice, runsBefore + orders);
	assert.deepEqual(
		runs.filter((r) => r.status !== 'success'),
		[],
		'no execution failed',
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
	return { requests: traffic!.requests, refused: traffic!.refused, report: report! };
}

/**
 * For a flash-sale file's describe block: real n8n with the order-to-invoice example active,
 * started in beforeAll and stopped in afterAll. `burst` runs burstThroughN8n on the example's
 * production webhook; `sandbox()` is the ERP n8n calls.
 */
export function useOrderExampleN8n(folderPrefix: string, log: (line: string) => void) {
	let e2e: E2e | undefined;
	const files = keepFilesOnFailure(log);
	const { workflow, webhookPath } = orderExample();
	beforeAll(async () => {
		e2e = await startE2e({ folderPrefix, log, files, workflows: () => [workflow] });
		await e2e.rest.activate(EXAMPLE_IDS.orderToInvoice);
	}, 75 * MINUTE);
	afterAll(async () => {
		await e2e?.stop();
	}, 10 * MINUTE);
	const started = (): E2e => {
		assert.ok(e2e, 'n8n is started in beforeAll');
		return e2e;
	};
	return {
		files,
		sandbox: () => started().sandbox,
		burst: async (plan: BurstPlan, runsBefore: number, name: string) =>
			await burstThroughN8n(
				started(),
				`${started().n8n!.url}/webhook/${webhookPath}`,
				plan,
				runsBefore,
				name,
			),
	};
}
