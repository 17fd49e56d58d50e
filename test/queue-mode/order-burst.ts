/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (shared.queue.ts, on the shared deployment): the pack in n8n's queue
 * mode (main, a webhook processor, 2 workers, Redis, PostgreSQL; see scripts/queue-mode.ts), with
 * the packed package installed in every n8n process. The ERP Trigger's replay checks
 * (test/e2e/trigger-replay.ts) run against the webhook processor. Then, alone on the deployment
 * (no other scenario's executions beside it), a burst of concurrent orders goes through the
 * order-to-invoice example's production webhook on the webhook processor; the workers run the
 * executions, all with one key, against the sandbox with a small window. Checked in the sandbox's
 * state and n8n's executions.
 *
 * Its sandbox is the one the demo credential (SANDBOX_CREDENTIAL) points at.
 */
import assert from 'node:assert/strict';

import { EXAMPLE_IDS, SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { checkBurst, postOrders, prepareBurst, sandboxStats } from '../../scripts/order-burst';
import { startedPerWorker } from '../../scripts/queue-mode';
import { expectRuns } from '../e2e/count';
import { orderExample } from '../e2e/order-burst';
import { registrationSecret, replayChecks, triggerWorkflow } from '../e2e/trigger-replay';
import type { Scenario } from './shared-deployment';

const ORDERS = 40;
const LIMIT = 30;
const WINDOW_SECONDS = 10;

const MINUTE = 60_000;
const TRIGGER = { workflowId: 'ErpQueueTrigger1', hookId: '6c1e2f3a-8b9c-4d0e-9f1a-2b3c4d5e6f71' };

export const orderBurst: Scenario = {
	tag: 'queue',
	imports: () => ({
		workflows: [
			orderExample().workflow,
			triggerWorkflow(TRIGGER.workflowId, TRIGGER.hookId, 'automatic', SANDBOX_CREDENTIAL, {
				catchUp: false,
			}),
		],
	}),
	ready: async ({ queue }) => await queue.rest.activate(EXAMPLE_IDS.orderToInvoice),
	tests: [
		{
			name: 'queue mode, one webhook processor: a replayed ERP Trigger delivery never starts a second run, one by one or ten at once',
			timeoutMs: 10 * MINUTE,
			async run({ queue: q, sandbox }) {
				await q.rest.activate(TRIGGER.workflowId);
				// Deliveries go to the webhook processor (N8N_WEBHOOK_URL, where the trigger registered
				// itself); the workers run the executions.
				const target = { ...TRIGGER, webhookUrl: q.webhookUrl, rest: q.rest };
				await replayChecks(target, await registrationSecret(sandbox.url, target), 'webhook');
			},
		},
		{
			name: `queue mode, 2 workers: ${ORDERS} concurrent orders through the webhook processor, one key, ${LIMIT} per ${WINDOW_SECONDS} s`,
			timeoutMs: 15 * MINUTE,
			alone: true,
			async run({ queue: q, sandbox }) {
				// The burst's own events (invoices, settlements) would start trigger runs: not counted here.
				await q.rest.deactivate(TRIGGER.workflowId);
				const { webhookPath } = orderExample();
				const plan = await prepareBurst(sandbox, {
					count: ORDERS,
					tag: 'QUEUE',
					limit: LIMIT,
					windowSeconds: WINDOW_SECONDS,
				});
				const before = await sandboxStats(sandbox);
				const started = Date.now();
				const answers = await postOrders(`${q.webhookUrl}/webhook/${String(webhookPath)}`, plan);
				const drainMs = Date.now() - started;
				// One execution per order, all finished, and no late one (a run the workers record after
				// the webhook processor answered): counted before the sandbox's state is read.
				const executions = await expectRuns(q.rest, EXAMPLE_IDS.orderToInvoice, ORDERS, {
					deadlineMs: 3 * MINUTE,
				});
				const report = await checkBurst(sandbox, plan, before);
				const byStatus: Record<string, number> = {};
				for (const e of executions) byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
				// Which worker ran the burst's executions (each worker logs the executions it starts).
				const perWorker = startedPerWorker(
					q,
					executions.map((e) => e.id),
				);
				process.stdout.write(
					`# ${
						`${report.requests} requests, ${report.refused} answered 429 (${(report.refusedShare * 100).toFixed(1)} %), ` +
						`${report.requestsPerOrder.toFixed(2)} accepted per order, ceiling use ${report.ceilingUse?.toFixed(3)}, ` +
						`drained in ${(drainMs / 1000).toFixed(1)} s, executions ${JSON.stringify(byStatus)}, per worker ${JSON.stringify(perWorker)}, ` +
						`windows ${JSON.stringify(report.windows.map((w) => [w.accepted, w.refused]))}`
					}\n`,
				);
				for (const failed of executions.filter((e) => e.status !== 'success')) {
					const errors = await q.rest.executionErrors(failed.id).catch((e: Error) => [e.message]);
					process.stdout.write(
						`# execution ${failed.id} (${failed.status}): ${errors.join(' | ')}\n`,
					);
				}
				assert.deepEqual(
					answers.filter((a) => a.status !== 200),
					[],
					'every order is answered 200 by the webhook processor',
				);
				assert.deepEqual(byStatus, { success: ORDERS }, '0 failed executions');
				assert.equal(report.missing, 0, 'no order without an invoice');
				assert.equal(report.duplicate, 0, 'no duplicate invoice');
				assert.equal(report.unpaid, 0, 'every invoice paid in full');
				assert.equal(report.settled, ORDERS);
				assert.ok(
					perWorker.every((n) => n > 0),
					`both workers ran executions of the burst: ${JSON.stringify(perWorker)}`,
				);
				assert.ok(
					report.refusedShare < 0.05,
					`429s: ${report.refused} of ${report.requests} (target under 5 %)`,
				);
			},
		},
	],
};
