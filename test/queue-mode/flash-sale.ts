/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (shared.queue.ts, on the shared deployment): the flash sale across two
 * queue-mode workers (issue 39), as test/e2e/flash-sale.test.ts runs it in one n8n process.
 * 30 concurrent orders through the webhook processor, on the order-to-invoice example's own copy
 * (own workflow id and webhook path) with a credential of its own, one key, against its own
 * sandbox at the specification's 100 per minute: a token bucket and a sliding window answering a
 * bare 429 (burst 10, as nginx's limit_req), a fixed window reporting its budget in headers. Each
 * worker paces the key on its own. Every order answered 200 and invoiced once, paid; no execution
 * failed; both workers ran the run's executions; under 15 % answered 429 (bare), under 2 %
 * (headers). The counters' control: 110 requests at once on a key of their own are refused as the
 * algorithm says (the pacing of before failing against a bucket: test/transport/flash-sale.test.ts).
 *
 * One scenario per limiter, their runs side by side once the other scenarios' tests are over
 * (`alone`: no other executions take the workers' slots meanwhile).
 */
import assert from 'node:assert/strict';

import {
	checkBurst,
	controlAtOnce,
	FLASH_SALE_LIMITERS,
	FLASH_SALE_ORDERS,
	postOrders,
	prepareBurst,
	refusedShareTarget,
	sandboxStats,
	specLimiter,
} from '../../scripts/order-burst';
import { startedPerWorker } from '../../scripts/queue-mode';
import { expectRuns } from '../e2e/count';
import { ownOrderExample } from '../e2e/order-burst';
import type { Scenario } from './shared-deployment';

const ORDERS = FLASH_SALE_ORDERS;
const MINUTE = 60_000;

export const flashSales: Scenario[] = FLASH_SALE_LIMITERS.map(({ algorithm, headers }, index) => {
	const maxRefusedShare = refusedShareTarget(headers, 2);
	const name = `${algorithm} ${headers}`;
	const id = `ErpQueueFlash${String(index).padStart(3, '0')}`;
	let webhookPath = '';
	return {
		tag: `queue flash ${name}`,
		imports: (sandbox) => {
			const own = ownOrderExample(id, sandbox.baseUrl, `the queue flash sale ${name}`);
			webhookPath = own.webhookPath;
			return { workflows: [own.workflow], credentials: [own.credential] };
		},
		ready: async ({ queue }) => await queue.rest.activate(id),
		tests: [
			{
				name: `2 workers, ${name} at 100 per minute: ${ORDERS} orders, every one invoiced once and paid, no execution failed, both workers ran them, under ${maxRefusedShare * 100} % answered 429`,
				timeoutMs: 15 * MINUTE,
				alone: true,
				async run({ queue: q, sandbox }) {
					const limiter = specLimiter(algorithm, headers);
					const control = await controlAtOnce(sandbox, limiter, `CTL${index}`);
					assert.ok(control.asExpected, `the control: ${control.refused} of 110 refused`);

					const plan = await prepareBurst(sandbox, {
						count: ORDERS,
						tag: `QFS${index}`,
						...limiter,
					});
					const before = await sandboxStats(sandbox);
					const answers = await postOrders(`${q.webhookUrl}/webhook/${webhookPath}`, plan);
					const executions = await expectRuns(q.rest, id, ORDERS, { deadlineMs: 5 * MINUTE });
					const report = await checkBurst(sandbox, plan, before);
					const perWorker = startedPerWorker(
						q,
						executions.map((e) => e.id),
					);
					process.stdout.write(
						`# ${name}: ${report.requests} requests, ${report.refused} answered 429 (${(report.refusedShare * 100).toFixed(1)} %), executions per worker ${JSON.stringify(perWorker)}, resends of an order answered 503: ${answers.reduce((sum, a) => sum + a.resent, 0)}\n`,
					);
					assert.deepEqual(
						answers.filter((a) => a.status !== 200),
						[],
						'every order is answered 200 by the webhook processor',
					);
					assert.deepEqual(
						executions.filter((e) => e.status !== 'success'),
						[],
						'0 failed executions',
					);
					assert.equal(report.missing, 0, 'no order without an invoice');
					assert.equal(report.duplicate, 0, 'no duplicate invoice');
					assert.equal(report.unpaid, 0, 'every invoice paid in full');
					assert.equal(report.settled, ORDERS);
					assert.equal(report.requests - report.refused, ORDERS * 8);
					assert.ok(
						perWorker.every((n) => n > 0),
						`both workers ran executions of the run: ${JSON.stringify(perWorker)}`,
					);
					assert.ok(
						report.refusedShare < maxRefusedShare,
						`429s: ${report.refused} of ${report.requests}`,
					);
				},
			},
		],
	};
});
