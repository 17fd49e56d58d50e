/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The flash sale in real n8n 2.41.1 (issue 39): the packed package installed as a community
 * package, the published order-to-invoice example, 30 concurrent orders on its production webhook,
 * one key, against each rate-limit algorithm the sandbox plays at the specification's 100 per
 * minute: a token bucket answering a bare 429 (burst 10, as nginx's limit_req), a sliding window
 * answering a bare 429, and a fixed window reporting its budget in headers. Every order gets
 * exactly one invoice, paid; no execution fails; under 10 % answered 429 (bare), under 2 %
 * (headers). The counters' control: 110 requests at once on a key of its own are refused as the
 * algorithm says (the controls against the pacing of before: test/transport/flash-sale.test.ts).
 *
 * The three runs overlap in the run's shared n8n (issue 38; test/e2e/order-burst.ts
 * `useOrderBurstRuns`): each has its own sandbox (its own limiter and counters, its control
 * included), its own credential and its own copy of the example (own workflow id and webhook).
 * The node's pacer keys its state by base URL and key, so the runs share no pace: each run sees
 * exactly what it would alone. The controls, and n8n recording each burst's 30 executions, go one
 * run at a time (OneAtATime); the bursts' waits on the limit overlap. Each run's test asserts on
 * that run's figures only.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import {
	controlAtOnce,
	FLASH_SALE_LIMITERS,
	FLASH_SALE_ORDERS,
	prepareBurst,
	refusedShareTarget,
	specLimiter,
} from '../../scripts/order-burst';
import { e2eLog, MINUTE } from './helpers';
import { useOrderBurstRuns } from './order-burst';

const SKIP = skipE2e();
const log = e2eLog('flash-sale');

const ORDERS = FLASH_SALE_ORDERS;
const RUNS = FLASH_SALE_LIMITERS.map((limiter) => ({
	...limiter,
	maxRefusedShare: refusedShareTarget(limiter.headers, 1),
}));

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the flash sale, ${ORDERS} concurrent orders, one key, 100 per minute`,
	() => {
		const runs = useOrderBurstRuns({
			folderPrefix: 'n8n-nodes-erp-e2e-flash-',
			log,
			idPrefix: 'ErpE2eFlashRun',
			count: RUNS.length,
			run: async ({ sandbox, burst, oneAtATime }, index) => {
				const { algorithm, headers } = RUNS[index];
				const name = `${algorithm} ${headers}`;
				const limiter = specLimiter(algorithm, headers);
				// One control at a time: a bucket refills while this process serves another's requests.
				const control = await oneAtATime(
					async () => await controlAtOnce(sandbox, limiter, `CTL${index}`),
				);
				log(`${name}: the control, ${control.refused} of 110 refused`);
				const plan = await prepareBurst(sandbox, {
					count: ORDERS,
					tag: `E2EFS${index}${Date.now() % 100000}`,
					...limiter,
				});
				const traffic = await burst(plan, name);
				log(`${name}: ${traffic.refused} of ${traffic.requests} answered 429`);
				return { control, traffic };
			},
		});

		RUNS.forEach(({ algorithm, headers, maxRefusedShare }, index) => {
			it(
				`${algorithm}, ${headers}: every order invoiced once and paid, no execution failed, under ${maxRefusedShare * 100} % answered 429`,
				runs.files.track(async () => {
					const { control, traffic } = await runs.outcome(index);
					assert.ok(control.asExpected, `the control: ${control.refused} of 110 refused`);
					assert.ok(
						traffic.refused / traffic.requests < maxRefusedShare,
						`${traffic.refused} of ${traffic.requests} answered 429`,
					);
				}),
				15 * MINUTE,
			);
		});
	},
);
