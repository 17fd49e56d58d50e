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
 * And through a limiter nobody here wrote (test/e2e/nginx-limiter.ts): nginx's `limit_req` at 100
 * per minute, burst 10, a bare 429, in front of the scenario's sandbox, alone and with the sandbox
 * reporting its own 100 per minute in headers; under 15 % of the requests nginx saw answered 429.
 * Its control: 40 requests at once through that nginx, on a key of their own, mostly refused.
 *
 * One scenario per limiter, their runs side by side once the other scenarios' tests are over
 * (`alone`: no other executions take the workers' slots meanwhile).
 */
import assert from 'node:assert/strict';

import type { SandboxHandle } from '../../sandbox';
import type { RunningNginx } from '../../scripts/nginx';
import {
	type BurstPlan,
	controlAtOnce,
	FLASH_SALE_LIMITERS,
	FLASH_SALE_ORDERS,
	prepareBurst,
	refusedShareTarget,
	specLimiter,
} from '../../scripts/order-burst';
import { type QueueDeployment, startedPerWorker } from '../../scripts/queue-mode';
import {
	controlThrough,
	limiterInFront,
	NGINX_RUNS,
	prepareNginxBurst,
	seen,
} from '../e2e/nginx-limiter';
import { burstThroughN8n, ownOrderExample } from '../e2e/order-burst';
import type { Scenario, ScenarioTest } from './shared-deployment';

const ORDERS = FLASH_SALE_ORDERS;
const MINUTE = 60_000;

/** A copy of the order example of its own (`id`), its credential pointing at `apiUrl`. */
const ownSale = (id: string, label: string) => (apiUrl: string) =>
	ownOrderExample(id, apiUrl, `the queue flash sale ${label}`);

/**
 * The burst of `plan` through the webhook processor with burstThroughN8n's checks, then: both
 * workers ran its executions, and under `maxShare` answered 429 (`traffic`: counted at the
 * limiter, else at the sandbox).
 */
async function acrossWorkers(
	run: { queue: QueueDeployment; sandbox: SandboxHandle },
	sale: { id: string; name: string; webhookPath: string; plan: BurstPlan; maxShare: number },
	traffic?: () => { requests: number; refused: number },
): Promise<void> {
	const { queue: q, sandbox } = run;
	const webhookUrl = `${q.webhookUrl}/webhook/${sale.webhookPath}`;
	const burst = await burstThroughN8n(
		{ rest: q.rest, webhookUrl, workflowId: sale.id, sandbox },
		sale.plan,
		sale.name,
	);
	const { requests, refused } = traffic?.() ?? burst;
	const perWorker = startedPerWorker(
		q,
		burst.runs.map((r) => r.id),
	);
	process.stdout.write(
		`# ${sale.name}: ${requests} requests, ${refused} answered 429 (${((refused / requests) * 100).toFixed(1)} %), executions per worker ${JSON.stringify(perWorker)}\n`,
	);
	assert.ok(
		perWorker.every((n) => n > 0),
		`both workers ran executions of the run: ${JSON.stringify(perWorker)}`,
	);
	assert.ok(refused / requests < sale.maxShare, `429s: ${refused} of ${requests}`);
}

/** The one test of a flash sale's scenario. */
const saleTest = (name: string, maxShare: number, run: ScenarioTest['run']): ScenarioTest => ({
	name: `2 workers, ${name} at 100 per minute: ${ORDERS} orders, every one invoiced once and paid, no execution failed, both workers ran them, under ${maxShare * 100} % answered 429`,
	timeoutMs: 15 * MINUTE,
	alone: true,
	run,
});

const sandboxSales: Scenario[] = FLASH_SALE_LIMITERS.map(({ algorithm, headers }, index) => {
	const maxShare = refusedShareTarget(headers, 2);
	const name = `${algorithm} ${headers}`;
	const id = `ErpQueueFlash${String(index).padStart(3, '0')}`;
	const own = ownSale(id, name);
	return {
		tag: `queue flash ${name}`,
		imports: (sandbox) => {
			const { workflow, credential } = own(sandbox.baseUrl);
			return { workflows: [workflow], credentials: [credential] };
		},
		ready: async ({ queue }) => await queue.rest.activate(id),
		tests: [
			saleTest(name, maxShare, async (run) => {
				const limiter = specLimiter(algorithm, headers);
				const control = await controlAtOnce(run.sandbox, limiter, `CTL${index}`);
				assert.ok(control.asExpected, `the control: ${control.refused} of 110 refused`);
				const plan = await prepareBurst(run.sandbox, {
					count: ORDERS,
					tag: `QFS${index}`,
					...limiter,
				});
				const { webhookPath } = own(run.sandbox.baseUrl);
				await acrossWorkers(run, { id, name, webhookPath, plan, maxShare });
			}),
		],
	};
});

const nginxSales: Scenario[] = NGINX_RUNS.map(({ name, sandboxLimit }, index) => {
	const maxShare = refusedShareTarget('bare', 2);
	const id = `ErpQueueNginx${String(index).padStart(3, '0')}`;
	const own = ownSale(id, name);
	let nginx: RunningNginx | undefined;
	return {
		tag: `queue flash nginx ${index}`,
		imports: async (sandbox) => {
			nginx = await limiterInFront(sandbox, (line) => process.stderr.write(`${line}\n`));
			const { workflow, credential } = own(`${nginx.url}/v1`);
			return { workflows: [workflow], credentials: [credential] };
		},
		close: async () => await nginx?.stop(),
		ready: async ({ queue }) => await queue.rest.activate(id),
		tests: [
			saleTest(name, maxShare, async (run) => {
				const limit = nginx!;
				const control = await controlThrough(limit);
				assert.ok(control.refused >= 25 && control.bare, `the control: ${JSON.stringify(control)}`);
				const plan = await prepareNginxBurst(run.sandbox, {
					count: ORDERS,
					tag: `QNG${index}`,
					sandboxLimit,
				});
				const from = limit.requests().length;
				const { webhookPath } = own(`${limit.url}/v1`);
				await acrossWorkers(run, { id, name, webhookPath, plan, maxShare }, () =>
					seen(limit, from),
				);
			}),
		],
	};
});

export const flashSales: Scenario[] = [...sandboxSales, ...nginxSales];
