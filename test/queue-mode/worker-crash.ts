/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (webhooks-nginx.queue.ts, on its cluster): `kill -9` of one worker
 * while the 40-order burst of the order-to-invoice example runs (30 requests per 10 s, so the
 * executions are in flight for about a minute). The shop waits `SHOP_TIMEOUT_MS` for each
 * answer; every order not answered 200 is resent as a shop resends it (same body). In the end
 * every order has exactly one invoice, paid in full, and the sandbox recorded exactly one
 * settlement per order. One order resent with a changed quantity is answered 409 and invoiced
 * no more. Control: a second invoice with an order's number, made in the ERP directly, is counted
 * as a duplicate.
 */
import assert from 'node:assert/strict';

import { call, type SandboxHandle } from '../../sandbox';
import { checkBurst, postOrders, prepareBurst, sandboxStats } from '../../scripts/order-burst';
import { startedPerWorker, type QueueDeployment } from '../../scripts/queue-mode';
import { waitFor } from '../trigger/helpers';

const ORDERS = 40;
const SHOP_TIMEOUT_MS = 150_000;
/** The worker is killed once it has started this many of the burst's executions. */
const KILL_AFTER = 3;

const settlements = async (sandbox: SandboxHandle) =>
	Number((await sandboxStats(sandbox)).settlements);

export async function workerCrashDuringBurst(
	q: QueueDeployment,
	sandbox: SandboxHandle,
	orderUrl: string,
	log: (line: string) => void,
): Promise<void> {
	const plan = await prepareBurst(sandbox, {
		count: ORDERS,
		tag: 'CRASH',
		limit: 30,
		windowSeconds: 10,
	});
	const before = await sandboxStats(sandbox);
	const settledBefore = await settlements(sandbox);
	const startedBefore = startedPerWorker(q)[0];
	const since = Date.now();
	const burst = postOrders(orderUrl, plan, SHOP_TIMEOUT_MS);
	await waitFor(
		`${KILL_AFTER} executions started on the first worker`,
		() => startedPerWorker(q)[0] - startedBefore >= KILL_AFTER,
		120_000,
	);
	const victim = q.processes.find((p) => p.role === 'worker')!;
	process.kill(-victim.pid, 'SIGKILL'); // the worker and its task runner, as a machine dies
	const killedAt = (Date.now() - since) / 1000;
	log(`killed ${victim.name} (pid ${victim.pid}) ${killedAt.toFixed(1)} s into the burst`);
	const answers = await burst;
	const unanswered = plan.orders.filter((_, i) => answers[i].status !== 200);
	const reasons = [...new Set(unanswered.map((o) => answers[plan.orders.indexOf(o)].text))];
	log(
		`${unanswered.length} orders not answered 200 within ${SHOP_TIMEOUT_MS / 1000} s: ${reasons.join(' | ').slice(0, 500)}`,
	);
	const resent = await postOrders(orderUrl, { orders: unanswered }, SHOP_TIMEOUT_MS);
	const report = await checkBurst(sandbox, plan, before);
	const settled = (await settlements(sandbox)) - settledBefore;
	process.stdout.write(
		`# worker kill -9 ${killedAt.toFixed(1)} s into the ${ORDERS}-order burst: ${unanswered.length} orders unanswered and resent ` +
			`(${resent.filter((a) => a.status === 200).length} answered 200), in ${((Date.now() - since) / 1000).toFixed(1)} s in all; ` +
			`invoices: ${report.settled} paid, ${report.missing} missing, ${report.duplicate} duplicate, ${report.unpaid} unpaid; ${settled} settlements; per worker ${JSON.stringify(startedPerWorker(q))}\n`,
	);
	assert.deepEqual(
		resent.filter((a) => a.status !== 200),
		[],
		'every resent order answered 200',
	);
	assert.equal(report.missing, 0, 'no order without an invoice');
	assert.equal(report.duplicate, 0, 'no duplicate invoice');
	assert.equal(report.unpaid, 0, 'every invoice paid in full');
	assert.equal(report.settled, ORDERS);
	assert.equal(settled, ORDERS, 'one settlement per order');

	// A changed order (same number, another quantity) is answered 409, and nothing is invoiced.
	const changed = structuredClone(plan.orders[0]);
	changed.line_items[0].quantity += 1;
	assert.equal((await postOrders(orderUrl, { orders: [changed] }))[0].status, 409);
	assert.equal(
		(await checkBurst(sandbox, plan, before)).duplicate,
		0,
		'the changed order made none',
	);
	// Control: a second invoice with the order's number, made in the ERP itself, is counted.
	const [first] = (
		await call(
			sandbox.baseUrl,
			'GET',
			`/factures?reference_externe=${encodeURIComponent(changed.order_number)}`,
		)
	).json.data as Array<{
		client_id: string;
		lignes: Array<{ article_id: string; quantite: number }>;
	}>;
	const second = await call(sandbox.baseUrl, 'POST', '/factures', {
		body: {
			client_id: first.client_id,
			lignes: first.lignes.map((l) => ({ article_id: l.article_id, quantite: l.quantite })),
			reference_externe: changed.order_number,
		},
	});
	assert.equal(second.status, 201, second.text);
	const control = await checkBurst(sandbox, plan, before);
	assert.equal(control.duplicate, 1, 'control: the second invoice is counted');
}
