/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The flash sale across two queue-mode workers (issue 39): n8n's queue mode (main, a webhook
 * processor, 2 workers, Redis, PostgreSQL; scripts/queue-mode.ts), 30 concurrent orders through
 * the order-to-invoice example's production webhook, one key, against the sandbox at the
 * specification's 100 per minute: a token bucket answering a bare 429 (burst 10, as nginx's
 * limit_req), then a fixed window reporting its budget in headers. Each worker paces the key on its
 * own; every order gets exactly one invoice, paid; no execution fails; under 15 % answered 429
 * (bare), under 2 % (headers). The counters' control: the key's requests at once are refused as
 * the algorithm says.
 *
 * Not in `npm test` (it takes minutes and installs Redis and PostgreSQL when missing), and not in
 * `npm run test:queue` unless ERP_QUEUE_FLASH_SALE=1: its first run there (.ci/run, 2026-11-27)
 * failed. With a token bucket answering a bare 429, 10 of the 30 orders got no answer from the
 * webhook processor within the client's 5-minute header timeout ("fetch failed"), 960 s in all.
 * Open in issue 39 until it holds.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from '@jest/globals';

import { startSandbox } from '../../sandbox';
import type { RateLimitAlgorithm, RateLimitHeaderDialect, SandboxHandle } from '../../sandbox';
import { EXAMPLE_IDS } from '../../scripts/examples';
import {
	checkBurst,
	postOrders,
	prepareBurst,
	controlAtOnce,
	specLimiter,
	sandboxStats,
} from '../../scripts/order-burst';
import { startQueueDeployment, type QueueDeployment } from '../../scripts/queue-mode';
import { expectRuns } from '../e2e/count';
import { orderExample } from '../e2e/order-burst';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const log = (line: string) => process.stderr.write(`[queue-flash] ${line}\n`);
const ORDERS = 30;
const MINUTE = 60_000;

let sandbox: SandboxHandle;
let queue: QueueDeployment | undefined;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	const workflows = [orderExample().workflow];
	queue = await startQueueDeployment({ sandboxBaseUrl: sandbox.baseUrl, workflows, log });
	await queue.rest.activate(EXAMPLE_IDS.orderToInvoice);
}, 45 * MINUTE);

afterAll(async () => {
	await queue?.stop();
	await sandbox?.close();
}, 5 * MINUTE);

const RUNS: Array<{
	algorithm: RateLimitAlgorithm;
	headers: RateLimitHeaderDialect;
	maxRefusedShare: number;
}> = [
	{ algorithm: 'token-bucket', headers: 'bare', maxRefusedShare: 0.15 },
	{ algorithm: 'fixed-window', headers: 'ietf-fields', maxRefusedShare: 0.02 },
];

const RUN = process.env.ERP_QUEUE_FLASH_SALE === '1' ? test : test.skip;

RUNS.forEach(({ algorithm, headers, maxRefusedShare }, index) => {
	RUN(
		`2 workers, ${algorithm} ${headers} at 100 per minute: ${ORDERS} orders, every one invoiced once and paid, no execution failed, under ${maxRefusedShare * 100} % answered 429`,
		async () => {
			const q = queue!;
			const limiter = specLimiter(algorithm, headers);
			const control = await controlAtOnce(sandbox, limiter, `CTL${index}`);
			assert.ok(control.asExpected, `the control: ${control.refused} of 110 refused`);

			const { webhookPath } = orderExample();
			const plan = await prepareBurst(sandbox, { count: ORDERS, tag: `QFS${index}`, ...limiter });
			const before = await sandboxStats(sandbox);
			const answers = await postOrders(`${q.webhookUrl}/webhook/${String(webhookPath)}`, plan);
			const executions = await expectRuns(
				q.rest,
				EXAMPLE_IDS.orderToInvoice,
				ORDERS * (index + 1),
				{
					deadlineMs: 5 * MINUTE,
				},
			);
			const report = await checkBurst(sandbox, plan, before);
			process.stdout.write(
				`# ${algorithm} ${headers}: ${report.requests} requests, ${report.refused} answered 429 (${(report.refusedShare * 100).toFixed(1)} %)\n`,
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
			assert.equal(report.settled, ORDERS);
			assert.equal(report.requests - report.refused, ORDERS * 8);
			assert.ok(
				report.refusedShare < maxRefusedShare,
				`429s: ${report.refused} of ${report.requests}`,
			);
		},
		15 * MINUTE,
	);
});
