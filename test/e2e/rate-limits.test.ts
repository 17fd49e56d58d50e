/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Rate-limit pacing in real n8n 2.41.1 (issue 23): the packed package installed as a community
 * package, the published order-to-invoice example, and a burst of concurrent orders on its
 * production webhook, all with one key, against the sandbox speaking one header dialect per run:
 * - none: only Retry-After on a 429 (paced at the specification's 100 per minute, each 429
 *   slowing the key down);
 * - bare: a bare 429, no header at all (the same; no execution may fail because a retry count ran
 *   out);
 * - x-ratelimit: X-RateLimit-* with the reset as a Unix time.
 * What this promises depends on n8n running the executions of one process side by side with the
 * node's module (and its pacer) shared between them. Every order gets exactly one invoice,
 * paid; no execution fails; the share answered 429 stays under its target.
 *
 * The three runs overlap in the run's shared n8n (issue 38; test/e2e/order-burst.ts
 * `useOrderBurstRuns`): each has its own sandbox (its own limit, dialect and counters), its own
 * credential and its own copy of the example (own workflow id and webhook). The pacer keys its
 * state by base URL and key, so the runs share no pace: each run's key is paced as it would be
 * alone. n8n records each burst's 30 executions one run at a time (OneAtATime); the bursts' waits
 * on the limit overlap. Each run's test asserts on that run's figures only.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import type { RateLimitHeaderDialect } from '../../sandbox';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import { prepareBurst } from '../../scripts/order-burst';
import { e2eLog, MINUTE } from './helpers';
import { useOrderBurstRuns } from './order-burst';

const SKIP = skipE2e();
const log = e2eLog('rate-limits');

const ORDERS = 30;
const LIMIT = 30;
const WINDOW_SECONDS = 5;
/** Under the issues' targets: 10 % with Retry-After only or a bare 429, 1 % for a dialect reporting the budget. */
const RUNS: Array<{ dialect: RateLimitHeaderDialect; maxRefusedShare: number }> = [
	{ dialect: 'none', maxRefusedShare: 0.1 },
	{ dialect: 'bare', maxRefusedShare: 0.1 },
	{ dialect: 'x-ratelimit', maxRefusedShare: 0.01 },
];

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: ${ORDERS} concurrent orders, one key, ${LIMIT} per ${WINDOW_SECONDS} s`,
	() => {
		const runs = useOrderBurstRuns({
			folderPrefix: 'n8n-nodes-erp-e2e-rate-',
			log,
			idPrefix: 'ErpE2eRateRuns',
			count: RUNS.length,
			run: async ({ sandbox, burst }, index) => {
				const { dialect } = RUNS[index];
				const plan = await prepareBurst(sandbox, {
					count: ORDERS,
					tag: `E2ERL${index}${Date.now() % 100000}`,
					limit: LIMIT,
					windowSeconds: WINDOW_SECONDS,
					headers: dialect,
				});
				const traffic = await burst(plan, dialect);
				log(`${dialect}: ${traffic.refused} of ${traffic.requests} answered 429`);
				return traffic;
			},
		});

		RUNS.forEach(({ dialect, maxRefusedShare }, index) => {
			it(
				`${dialect}: every order invoiced once and paid, no execution failed, under ${maxRefusedShare * 100} % answered 429`,
				runs.files.track(async () => {
					const traffic = await runs.outcome(index);
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
