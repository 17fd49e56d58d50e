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
	controlAtOnce,
	FLASH_SALE_LIMITERS,
	FLASH_SALE_ORDERS,
	prepareBurst,
	refusedShareTarget,
	specLimiter,
} from '../../scripts/order-burst';
import { startedPerWorker } from '../../scripts/queue-mode';
import { burstThroughN8n, ownOrderExample } from '../e2e/order-burst';
import type { Scenario } from './shared-deployment';

const ORDERS = FLASH_SALE_ORDERS;
const MINUTE = 60_000;

export const flashSales: Scenario[] = FLASH_SALE_LIMITERS.map(({ algorithm, headers }, index) => {
	const maxRefusedShare = refusedShareTarget(headers, 2);
	const name = `${algorithm} ${headers}`;
	const id = `ErpQueueFlash${String(index).padStart(3, '0')}`;
	const own = (apiUrl: string) => ownOrderExample(id, apiUrl, `the queue flash sale ${name}`);
	return {
		tag: `queue flash ${name}`,
		imports: (sandbox) => {
			const { workflow, credential } = own(sandbox.baseUrl);
			return { workflows: [workflow], credentials: [credential] };
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
					const webhookUrl = `${q.webhookUrl}/webhook/${own(sandbox.baseUrl).webhookPath}`;
					const burst = await burstThroughN8n(
						{ rest: q.rest, webhookUrl, workflowId: id, sandbox },
						plan,
						name,
					);
					const perWorker = startedPerWorker(
						q,
						burst.runs.map((run) => run.id),
					);
					const share = burst.refused / burst.requests;
					process.stdout.write(
						`# ${name}: ${burst.requests} requests, ${burst.refused} answered 429 (${(share * 100).toFixed(1)} %), executions per worker ${JSON.stringify(perWorker)}\n`,
					);
					assert.ok(
						perWorker.every((n) => n > 0),
						`both workers ran executions of the run: ${JSON.stringify(perWorker)}`,
					);
					assert.ok(share < maxRefusedShare, `429s: ${burst.refused} of ${burst.requests}`);
				},
			},
		],
	};
});
