/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (shared.queue.ts, on the shared deployment): the same order sent twice
 * at the same moment (a shop retrying while the first execution still runs) through the order
 * example in n8n's queue mode (main, a webhook processor, 2 workers): the example's own copy
 * (ONCE), with a credential on this scenario's own sandbox. Each pair's two invoice lookups are
 * held by the sandbox until both arrived (a `barrier` fault), so both executions look before either
 * writes, whichever worker runs them. One worker holds the second execution itself (the process's
 * one-at-a-time per reference, so its lookup arrives only when the barrier gave up); two workers
 * share nothing.
 * - the ERP keeping Idempotency-Key: one invoice and one settlement per order (the second POST
 *   carries the same automatic key and gets the first answer);
 * - the ERP ignoring it: measured, printed, not promised: the orders whose two executions ran on
 *   two workers get two invoices.
 */
import assert from 'node:assert/strict';

import { call, control, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { demoCredential, SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { postOrders, type BurstOrder } from '../../scripts/order-burst';
import { startedPerWorker, type QueueDeployment } from '../../scripts/queue-mode';
import { readRuns } from '../e2e/count';
import { ownCopy, withCredentials } from '../e2e/helpers';
import { orderExample } from '../e2e/order-burst';
import type { Scenario, ScenarioRun } from './shared-deployment';

const MINUTE = 60_000;
const PAIRS = 6;
/** The order example's own copy, and its credential (on this scenario's sandbox). */
const ONCE = {
	id: 'ErpQueueOnce0001',
	credential: { id: 'ErpQueueOnceKey1', name: 'ERP sandbox (write once)' },
};
const onceWorkflow = withCredentials(
	ownCopy(orderExample().workflow, ONCE.id),
	new Map([[SANDBOX_CREDENTIAL.id, ONCE.credential.id]]),
);
const oncePath = onceWorkflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters
	.path;

/** How many of the copy's executions (all of them, or all but `before`) each worker started. */
async function perWorker(q: QueueDeployment, before: string[] = []): Promise<number[]> {
	const runs = (await readRuns(q.rest, ONCE.id)).detail ?? [];
	return startedPerWorker(
		q,
		runs.map((r) => r.id).filter((id) => !before.includes(id)),
	);
}

async function count(
	sandbox: SandboxHandle,
	path: string,
	keep: (r: Record<string, unknown>) => boolean,
) {
	const answer = await call(sandbox.baseUrl, 'GET', `${path}&limit=100`);
	return (answer.json.data as Array<Record<string, unknown>>).filter(keep).length;
}

/** PAIRS orders, each sent twice at once with its lookups held together: invoices and settlements per order. */
async function pairs({ sandbox, queue, log }: ScenarioRun, tag: string) {
	const orderUrl = `${queue.webhookUrl}/webhook/${String(oncePath)}`;
	const written: Array<{ invoices: number; settlements: number }> = [];
	for (let k = 1; k <= PAIRS; k++) {
		const number = `${tag}-${k}`;
		await control(sandbox.url, 'faults', {
			faults: [
				{
					kind: 'barrier',
					parties: 2,
					count: 2,
					timeoutMs: 5000,
					methods: ['GET'],
					paths: ['/factures'],
				},
			],
		});
		const order: BurstOrder = {
			order_number: number,
			financial_status: 'paid',
			customer: { email: `${number.toLowerCase()}@shop.example`, name: 'Twice At Once' },
			line_items: [{ sku: 'MUG-BLUE', quantity: 1 }],
		};
		const answers = await postOrders(orderUrl, { orders: [order, order] }, 3 * MINUTE);
		log(`${number}: ${answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join(' | ')}`);
		written.push({
			invoices: await count(
				sandbox,
				`/factures?reference_externe=${encodeURIComponent(number)}`,
				(f) => f.reference_externe === number,
			),
			settlements: await count(
				sandbox,
				`/reglements?reference=${encodeURIComponent(`Order ${number}`)}`,
				(r) => r.reference === `Order ${number}`,
			),
		});
	}
	await control(sandbox.url, 'faults', { faults: [] });
	return written;
}

export const writeOnce: Scenario = {
	tag: 'queue once',
	sandbox: { rateLimit: UNPACED },
	imports: (sandbox) => ({
		workflows: [onceWorkflow],
		credentials: [{ ...demoCredential(sandbox.baseUrl), ...ONCE.credential }],
	}),
	ready: async ({ queue }) => await queue.rest.activate(ONCE.id),
	tests: [
		{
			name: `queue mode, 2 workers, the ERP keeping Idempotency-Key: ${PAIRS} orders each sent twice at once, one invoice and one settlement each`,
			timeoutMs: 15 * MINUTE,
			async run(scenario) {
				await control(scenario.sandbox.url, 'config', { idempotencyKeys: 'keep' });
				const written = await pairs(scenario, 'QKEEP');
				process.stdout.write(
					`# keys kept: ${JSON.stringify(written)}, executions per worker ${JSON.stringify(await perWorker(scenario.queue))}\n`,
				);
				assert.deepEqual(
					written,
					written.map(() => ({ invoices: 1, settlements: 1 })),
				);
			},
		},
		{
			name: `queue mode, 2 workers, the ERP ignoring Idempotency-Key: ${PAIRS} orders each sent twice at once, measured`,
			timeoutMs: 15 * MINUTE,
			async run(scenario) {
				await control(scenario.sandbox.url, 'config', { idempotencyKeys: 'ignore' });
				const before = ((await readRuns(scenario.queue.rest, ONCE.id)).detail ?? []).map(
					(r) => r.id,
				);
				const written = await pairs(scenario, 'QIGNORE');
				const twice = written.filter((w) => w.invoices > 1).length;
				process.stdout.write(
					`# keys ignored: ${twice} of ${PAIRS} orders got two invoices, ${written.filter((w) => w.settlements > 1).length} two settlements; ` +
						`${JSON.stringify(written)}; executions per worker in this test ${JSON.stringify(await perWorker(scenario.queue, before))}\n`,
				);
				// What is measured, not promised: never more than one invoice per execution.
				assert.ok(written.every((w) => w.invoices >= 1 && w.invoices <= 2));
			},
		},
	],
};
