/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:queue`: the same order sent twice at the same moment (a shop retrying while the
 * first execution still runs) through the order example in n8n's queue mode (main, a webhook
 * processor, 2 workers). Each pair's two invoice lookups are held by the sandbox until both
 * arrived (a `barrier` fault), so both executions look before either writes, whichever worker
 * runs them. One worker holds the second execution itself (the process's one-at-a-time per
 * reference, so its lookup arrives only when the barrier gave up); two workers share nothing.
 * - the ERP keeping Idempotency-Key: one invoice and one settlement per order (the second POST
 *   carries the same automatic key and gets the first answer);
 * - the ERP ignoring it: measured, printed, not promised: the orders whose two executions ran on
 *   two workers get two invoices.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from '@jest/globals';

import { call, control, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { EXAMPLE_IDS, loadExamples, wireExample } from '../../scripts/examples';
import { postOrders, type BurstOrder } from '../../scripts/order-burst';
import {
	startedPerWorker,
	startQueueDeployment,
	type QueueDeployment,
} from '../../scripts/queue-mode';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const log = (line: string) => process.stderr.write(`[queue once] ${line}\n`);
const MINUTE = 60_000;
const PAIRS = 6;

let sandbox: SandboxHandle;
let queue: QueueDeployment | undefined;
let orderUrl: string;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED });
	const [example] = loadExamples()
		.map(({ workflow }) => workflow)
		.filter((w) => w.id === EXAMPLE_IDS.orderToInvoice);
	const path = example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path;
	queue = await startQueueDeployment({
		sandboxBaseUrl: sandbox.baseUrl,
		workflows: [wireExample(example, { chatUrl: 'http://127.0.0.1:9/unused' })],
		log,
	});
	await queue.rest.activate(EXAMPLE_IDS.orderToInvoice);
	orderUrl = `${queue.webhookUrl}/webhook/${String(path)}`;
}, 45 * MINUTE);

afterAll(async () => {
	await queue?.stop();
	await sandbox?.close();
}, 5 * MINUTE);

async function count(path: string, keep: (r: Record<string, unknown>) => boolean) {
	const answer = await call(sandbox.baseUrl, 'GET', `${path}&limit=100`);
	return (answer.json.data as Array<Record<string, unknown>>).filter(keep).length;
}

/** PAIRS orders, each sent twice at once with its lookups held together: invoices and settlements per order. */
async function pairs(tag: string) {
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
				`/factures?reference_externe=${encodeURIComponent(number)}`,
				(f) => f.reference_externe === number,
			),
			settlements: await count(
				`/reglements?reference=${encodeURIComponent(`Order ${number}`)}`,
				(r) => r.reference === `Order ${number}`,
			),
		});
	}
	await control(sandbox.url, 'faults', { faults: [] });
	return written;
}

test(
	`queue mode, 2 workers, the ERP keeping Idempotency-Key: ${PAIRS} orders each sent twice at once, one invoice and one settlement each`,
	async () => {
		await control(sandbox.url, 'config', { idempotencyKeys: 'keep' });
		const written = await pairs('QKEEP');
		process.stdout.write(
			`# keys kept: ${JSON.stringify(written)}, executions per worker ${JSON.stringify(startedPerWorker(queue!))}\n`,
		);
		assert.deepEqual(
			written,
			written.map(() => ({ invoices: 1, settlements: 1 })),
		);
	},
	15 * MINUTE,
);

test(
	`queue mode, 2 workers, the ERP ignoring Idempotency-Key: ${PAIRS} orders each sent twice at once, measured`,
	async () => {
		await control(sandbox.url, 'config', { idempotencyKeys: 'ignore' });
		const before = startedPerWorker(queue!);
		const written = await pairs('QIGNORE');
		const after = startedPerWorker(queue!);
		const twice = written.filter((w) => w.invoices > 1).length;
		process.stdout.write(
			`# keys ignored: ${twice} of ${PAIRS} orders got two invoices, ${written.filter((w) => w.settlements > 1).length} two settlements; ` +
				`${JSON.stringify(written)}; executions per worker in this test ${JSON.stringify(after.map((n, i) => n - before[i]))}\n`,
		);
		// What is measured, not promised: never more than one invoice per execution.
		assert.ok(written.every((w) => w.invoices >= 1 && w.invoices <= 2));
	},
	15 * MINUTE,
);
