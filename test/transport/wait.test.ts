/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * The transport's wait (nodes/shared/transport/pacer.ts) where n8n's `sleep` ignores its signal:
 * n8n-workflow's `sleep` is replaced by the one n8n shipped before 2.34 (n8n-workflow 1.120.31
 * and 2.33.2, utils.js: `new Promise((resolve) => { setTimeout(resolve, ms); })`, no signal).
 * A cancelled execution's wait ends within one slice; the control shows that sleep alone sits
 * the whole wait out.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, jest, test } from '@jest/globals';

jest.mock('n8n-workflow', () => ({
	...jest.requireActual<object>('n8n-workflow'),
	sleep: async (ms: number) =>
		await new Promise((resolve) => {
			setTimeout(resolve, ms);
		}),
}));

// Loaded after the replacement above (a static import would be loaded before it).
let sleep: typeof import('n8n-workflow').sleep;
let wait: typeof import('../../nodes/shared/transport/pacer').wait;
let WAIT_SLICE_MS: number;
beforeAll(async () => {
	({ sleep } = await import('n8n-workflow'));
	({ wait, WAIT_SLICE_MS } = await import('../../nodes/shared/transport/pacer'));
});

/** How long `promise` took to settle, and whether it rejected. */
async function timed(promise: Promise<unknown>): Promise<{ ms: number; rejected: boolean }> {
	const started = Date.now();
	const rejected = await promise.then(
		() => false,
		() => true,
	);
	return { ms: Date.now() - started, rejected };
}

describe('wait, with the sleep of n8n before 2.34', () => {
	test('control: that sleep ignores the signal and sits the whole wait out', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 50);
		const { ms, rejected } = await timed(sleep(1500, controller.signal));
		assert.equal(rejected, false);
		assert.ok(ms >= 1450, `slept ${ms} ms`);
	});

	test('a cancellation ends a 10 s wait within one slice, with the signal’s reason', async () => {
		const controller = new AbortController();
		const reason = new Error('cancelled by the user');
		setTimeout(() => controller.abort(reason), 50);
		const started = Date.now();
		await assert.rejects(wait(10_000, controller.signal), (error) => error === reason);
		const ms = Date.now() - started;
		assert.ok(ms < 50 + WAIT_SLICE_MS + 500, `the wait ended after ${ms} ms`);
	});

	test('an already cancelled execution does not wait at all; without a signal it waits in full', async () => {
		const controller = new AbortController();
		controller.abort();
		assert.equal((await timed(wait(10_000, controller.signal))).rejected, true);
		const { ms, rejected } = await timed(wait(3 * WAIT_SLICE_MS + 50));
		assert.equal(rejected, false);
		assert.ok(ms >= 3 * WAIT_SLICE_MS + 40, `waited ${ms} ms`);
	});
});
