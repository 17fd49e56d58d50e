/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * The flash sale through n8n-core's engine over real HTTP: concurrent executions of the
 * order-to-invoice example's ERP nodes, one key, against each rate-limit algorithm the sandbox
 * plays (fixed window, sliding window, token bucket with a burst of 10), with budget headers and
 * with a bare 429. Every order gets exactly one invoice, paid; 8 accepted requests per order;
 * under 2 % answered 429 with budget headers, under 10 % with a bare 429. Assertions read the
 * sandbox's stats and state, never the clock.
 *
 * Replaces the tests of the burst model (one per header dialect against the fixed window, and a
 * bare 429 at the credential's rate); their promises are kept: every order invoiced once and
 * paid, each dialect paced under the ceiling, the bare 429 at the credential's rate. Each
 * algorithm's control sends 40 requests at once (what a burst does) and must count its refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { checkBurst, freshKey, prepareBurst, sandboxStats } from '../../scripts/order-burst';
import type { BurstReport } from '../../scripts/order-burst';
import type { RateLimitAlgorithm, RateLimitHeaderDialect } from '../../sandbox';
import { useSandbox, type SandboxUnderTest } from '../harness/sandbox';
import { api } from './helpers';
import { runBurstInProcess } from './order-burst';

/** A burst is paced by design (about 19 s at 600 per minute, 111 s at 100): counts are asserted, never the time. */
export const BURST_TIMEOUT_MS = 300_000;

/** 600 per minute: 30 per 3 s (a token bucket of 10 refilled at that rate). */
export const LIMIT = 30;
export const WINDOW_SECONDS = 3;
export const ORDERS = 30;
const BURST = 10;

export interface Limiter {
	algorithm: RateLimitAlgorithm;
	headers: RateLimitHeaderDialect;
	limit?: number;
	windowSeconds?: number;
}

async function prepare(
	sb: SandboxUnderTest,
	name: string,
	count: number,
	tag: string,
	limiter: Limiter,
) {
	const key = await freshKey(sb, name);
	const plan = await prepareBurst(sb, {
		count,
		tag,
		limit: limiter.limit ?? LIMIT,
		windowSeconds: limiter.windowSeconds ?? WINDOW_SECONDS,
		headers: limiter.headers,
		algorithm: limiter.algorithm,
		burst: limiter.algorithm === 'token-bucket' ? BURST : undefined,
	});
	return { key, plan, before: await sandboxStats(sb) };
}

/** Runs the burst and checks every order: one invoice each, paid, 8 accepted requests per order. */
export async function flashSale(
	sb: SandboxUnderTest,
	name: string,
	count: number,
	tag: string,
	limiter: Limiter,
	rateLimitPerMinute?: number,
) {
	const { key, plan, before } = await prepare(sb, name, count, tag, limiter);
	const run = await runBurstInProcess(sb.baseUrl, key, plan, { rateLimitPerMinute });
	const report = await checkBurst(sb, plan, before);
	process.stdout.write(
		`# ${name}: ${report.requests} requests, ${report.refused} answered 429, ceiling use ${report.ceilingUse}\n`,
	);
	assert.deepEqual(run.errors, []);
	assert.equal(report.missing, 0);
	assert.equal(report.duplicate, 0);
	assert.equal(report.unpaid, 0);
	assert.equal(report.settled, count);
	// Client lookup and creation, 2 article references, invoice, settlement.
	assert.equal(report.requests - report.refused, count * 8);
	return report;
}

export const tagOf = (text: string) => text.replace(/\W/g, '').slice(0, 6).toUpperCase();

/** One burst, run on the sandbox it is given. */
export type Burst = (sb: SandboxUnderTest) => Promise<BurstReport>;

/**
 * Every burst starts when the first of them is awaited (after a control test, which then runs
 * alone: 40 requests at once must not straddle a window because the CPU is busy), each on a sandbox
 * of its own, whose limiter no other burst touches, and with its own key: a burst waits on the
 * limiter's clock, not on the CPU, so the bursts wait side by side. Each test awaits its own.
 */
export function burstsSideBySide<K extends string>(
	bursts: Record<K, Burst>,
): (name: K) => Promise<BurstReport> {
	const names = Object.keys(bursts) as K[];
	const sandboxes = new Map(names.map((name) => [name, useSandbox()]));
	const started = new Map<K, Promise<BurstReport>>();
	return async (name) => {
		if (started.size === 0) {
			for (const each of names) {
				const run = bursts[each](sandboxes.get(each)!);
				// Its own test reports a failure; none is left unhandled meanwhile.
				run.catch(() => undefined);
				started.set(each, run);
			}
		}
		return await started.get(name)!;
	};
}

/** The tests of one algorithm at 600 per minute (a file each: they wait, side by side). */
export function algorithmTests(algorithm: RateLimitAlgorithm): void {
	const control = useSandbox();
	const burst = burstsSideBySide({
		headers: (sb) =>
			flashSale(sb, `${algorithm} headers`, ORDERS, `H${tagOf(algorithm)}`, {
				algorithm,
				headers: 'ietf-fields',
			}),
		bare: (sb) =>
			flashSale(
				sb,
				`${algorithm} bare`,
				ORDERS,
				`B${tagOf(algorithm)}`,
				{ algorithm, headers: 'bare' },
				(LIMIT * 60) / WINDOW_SECONDS,
			),
	});
	describe(`${algorithm}, 600 per minute`, () => {
		test('control: 40 requests at once are refused as the algorithm says, and the stats count them', async () => {
			const { key, plan, before } = await prepare(
				control,
				`control ${algorithm}`,
				1,
				`C${tagOf(algorithm)}`,
				// 30 a minute: the 40 requests all fall in one window even on a busy machine.
				{ algorithm, headers: 'bare', limit: LIMIT, windowSeconds: 60 },
			);
			const answers = await Promise.all(
				Array.from({ length: 40 }, () => api(control.baseUrl, key, 'GET', '/articles?limit=1')),
			);
			const report = await checkBurst(control, plan, before);
			const refused = answers.filter((a) => a.status === 429).length;
			assert.equal(report.refused, refused);
			// A window refuses exactly the overflow; a bucket refills while 40 requests go out (one every 2 s).
			if (algorithm === 'token-bucket') assert.ok(refused >= 20, `${refused} refused`);
			else assert.equal(refused, 10);
		});

		test(
			`${ORDERS} concurrent orders, budget headers: every order invoiced once and paid, under 2 % answered 429`,
			async () => {
				const report = await burst('headers');
				assert.ok(
					report.refused / report.requests < 0.02,
					`${report.refused} of ${report.requests}`,
				);
			},
			BURST_TIMEOUT_MS,
		);

		test(
			`${ORDERS} concurrent orders, a bare 429, the credential's rate set to it: every order invoiced once and paid, under 10 % answered 429`,
			async () => {
				const report = await burst('bare');
				assert.ok(
					report.refused / report.requests < 0.1,
					`${report.refused} of ${report.requests}`,
				);
			},
			BURST_TIMEOUT_MS,
		);
	});
}
