/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n and nginx from outside, not a node */
/**
 * The flash sale in real n8n 2.41.1 against a rate limiter nobody here wrote (issue 39): Debian's
 * nginx in front of the sandbox, `limit_req` at 100 requests per minute per API key, burst 10,
 * nodelay (a leaky bucket answering a bare 429), started by the test as the queue-mode tests start
 * nginx (scripts/nginx.ts). The example's credential points at nginx. Two runs of 30 concurrent
 * orders: nginx alone (the ERP sends no rate-limit header), and nginx in front of the sandbox
 * reporting its own 100 per minute in `RateLimit-*` headers (the case the pacing of before lost
 * orders in: it took the headers as permission to burst). Every order gets exactly one invoice,
 * paid; no execution fails; under 10 % of the requests nginx saw were answered 429. The control:
 * 40 requests at once through an nginx of the same configuration are refused as its bucket says
 * (29 or so).
 *
 * The two runs overlap in the run's shared n8n (issue 38; test/e2e/order-burst.ts
 * `useOrderBurstRuns`), and the control beside them: each run has its own sandbox, its own nginx
 * in front of it (its own limit_req zone and access log), its own credential pointing at that
 * nginx and its own copy of the example (own workflow id and webhook); the control its own nginx
 * in front of the file's sandbox, which no run uses. The pacer keys its state by base URL and key
 * (each nginx has its own port), so the runs share no pace and no limiter. The control, and n8n
 * recording each burst's 30 executions, go one at a time (OneAtATime); the bursts' waits overlap.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, describe, it } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import type { RunningNginx } from '../../scripts/nginx';
import { sandboxControl } from '../../scripts/order-burst';
import { e2eLog, MINUTE, type Sandbox } from './helpers';
import {
	controlThrough,
	limiterInFront,
	NGINX_RUNS as RUNS,
	prepareNginxBurst,
	seen,
} from './nginx-limiter';
import { useOrderBurstRuns } from './order-burst';

const SKIP = skipE2e();
const log = e2eLog('nginx-limit');
const ORDERS = 30;

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the flash sale through nginx's limit_req, 100 per minute, burst 10`,
	() => {
		const nginxes: RunningNginx[] = [];
		/** An nginx of its own in front of `sandbox`. */
		const limiter = async (sandbox: Sandbox): Promise<RunningNginx> => {
			const nginx = await limiterInFront(sandbox, log);
			nginxes.push(nginx);
			return nginx;
		};
		const byRun: RunningNginx[] = [];

		const runs = useOrderBurstRuns({
			folderPrefix: 'n8n-nodes-erp-e2e-nginx-limit-',
			log,
			idPrefix: 'ErpE2eNginxRun',
			count: RUNS.length,
			// Each run's credential points at its nginx, not at its sandbox.
			apiUrl: async (sandbox, index) => {
				byRun[index] = await limiter(sandbox);
				return `${byRun[index].url}/v1`;
			},
			run: async ({ sandbox, burst }, index) => {
				const { name, sandboxLimit } = RUNS[index];
				const plan = await prepareNginxBurst(sandbox, {
					count: ORDERS,
					tag: `E2ENG${index}${Date.now() % 100000}`,
					sandboxLimit,
				});
				const from = byRun[index].requests().length;
				await burst(plan, name);
				const traffic = seen(byRun[index], from);
				log(`${name}: nginx saw ${traffic.requests} API requests, ${traffic.refused} answered 429`);
				return traffic;
			},
		});

		afterAll(async () => {
			await Promise.all(nginxes.map((nginx) => nginx.stop()));
		}, 10 * MINUTE);

		it('control: 40 requests at once through nginx, most refused with a bare 429', async () => {
			const { sandbox } = runs.e2e();
			await sandboxControl(sandbox.url, 'config', { rateLimit: false });
			const nginx = await limiter(sandbox);
			const control = await runs.oneAtATime(async () => await controlThrough(nginx));
			log(`control: ${control.refused} of 40 refused`);
			assert.ok(control.refused >= 25, `${control.refused} of 40 refused`);
			assert.ok(control.bare, 'a bare 429');
			assert.equal(control.logged, control.refused, 'the access log counts them');
		});

		RUNS.forEach(({ name }, index) => {
			it(
				`${name}: ${ORDERS} orders, every one invoiced once and paid, no execution failed, under 10 % answered 429`,
				runs.files.track(async () => {
					const { requests, refused } = await runs.outcome(index);
					assert.ok(refused / requests < 0.1, `${refused} of ${requests} answered 429`);
				}),
				15 * MINUTE,
			);
		});
	},
);
