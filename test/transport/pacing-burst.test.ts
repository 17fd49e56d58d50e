/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * Concurrency-aware pacing through real workflows: many executions of the order-to-invoice
 * example's ERP nodes at once, through n8n-core's engine, with one key, against the sandbox with
 * a small window. Assertions read the sandbox's /_sandbox/stats and state, not the clock.
 */
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import { checkBurst, freshKey, prepareBurst, sandboxStats } from '../../scripts/order-burst';
import { useSandbox } from '../harness/sandbox';
import { api } from './helpers';
import { runBurstInProcess } from './order-burst';

const sb = useSandbox();

const LIMIT = 30;
const WINDOW_SECONDS = 4;

/** A key of its own, `count` orders tagged `tag` in a window of LIMIT per WINDOW_SECONDS, and the stats before. */
async function prepare(keyName: string, count: number, tag: string) {
	const key = await freshKey(sb, keyName);
	const plan = await prepareBurst(sb, { count, tag, limit: LIMIT, windowSeconds: WINDOW_SECONDS });
	return { key, plan, before: await sandboxStats(sb) };
}

test('control: the same window answers 429 to requests sent without pacing, and the stats count them', async () => {
	const { key, plan, before } = await prepare('control', 1, 'CTRL');
	// 45 requests at once, as 45 executions would send them if each saw "requests left".
	const answers = await Promise.all(
		Array.from({ length: 45 }, () => api(sb.baseUrl, key, 'GET', '/articles?limit=1')),
	);
	const report = await checkBurst(sb, plan, before);
	assert.equal(answers.filter((a) => a.status === 429).length, 15);
	assert.equal(report.refused, 15);
	assert.equal(report.requests, 45);
});

test('24 concurrent orders with one key: no 429, every order invoiced once and paid', async () => {
	const { key, plan, before } = await prepare('burst', 24, 'BURST');
	const run = await runBurstInProcess(sb.baseUrl, key, plan);
	const report = await checkBurst(sb, plan, before);
	process.stdout.write(
		`# ${`${report.requests} requests, ${report.refused} answered 429, ${report.requestsPerOrder} per order, ceiling use ${report.ceilingUse}, windows ${JSON.stringify(report.windows.map((w) => w.accepted))}`}\n`,
	);
	assert.deepEqual(run.errors, []);
	assert.equal(report.missing, 0);
	assert.equal(report.duplicate, 0);
	assert.equal(report.unpaid, 0);
	assert.equal(report.settled, 24);
	// 6 accepted requests per order: client lookup and creation, 2 article references, invoice, settlement.
	assert.equal(report.requests - report.refused, 24 * 6);
	assert.equal(report.refused, 0, 'paced under the ceiling');
	// The windows the burst filled were filled (the clock is not asserted, only the counts).
	assert.ok(report.windows.length >= 5);
	for (const window of report.windows.slice(0, -1))
		assert.ok(window.accepted >= LIMIT - 1, JSON.stringify(report.windows));
});
