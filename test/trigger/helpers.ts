/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Shared by the trigger tests: calls to the sandbox (API and control), polling, and deliveries
// signed by the `standardwebhooks` package (the scheme's reference implementation).
import { jest } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS, UNPACED, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import type { WebhookRetry } from '../../sandbox/webhooks';

export interface Answer {
	status: number;
	// Parsed JSON of the sandbox's answer, read field by field by the tests.
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
}

async function call(url: string, method: string, body: unknown, key?: string): Promise<Answer> {
	const response = await fetch(url, {
		method,
		headers: {
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
			...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** A request to the sandbox's `/v1` API with a demo key (full scopes by default). */
export const api = (
	sandbox: SandboxHandle,
	method: string,
	path: string,
	body?: unknown,
	key: string = DEMO_KEYS.full,
) => call(`${sandbox.baseUrl}${path}`, method, body, key);

/** A request to the sandbox's control API (`/_sandbox/...`). */
export const control = (sandbox: SandboxHandle, method: string, path: string, body?: unknown) =>
	call(`${sandbox.url}/_sandbox${path}`, method, body);

/** Every item of a list endpoint, read with the demo key page by page (follows next_cursor). */
export async function listAll(sandbox: SandboxHandle, path: string): Promise<IDataObject[]> {
	const all: IDataObject[] = [];
	let cursor: string | null = null;
	do {
		const page: Answer = await api(
			sandbox,
			'GET',
			`${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
		);
		assert.equal(page.status, 200, `GET ${path}`);
		all.push(...page.body.data);
		cursor = page.body.pagination.next_cursor;
	} while (cursor);
	return all;
}

/** Every webhook registration in the sandbox. */
export const listWebhooks = (sandbox: SandboxHandle) => listAll(sandbox, '/webhooks');

/** Polls `check` until it returns something other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
	what: string,
	check: () => Promise<T | undefined | false> | T | undefined | false,
	timeoutMs = 5000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await delay(10);
	}
}

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
export { nowSeconds } from './signed-delivery';

/**
 * Stops the clock that the trigger reads (`Date`, in this test file's realm) at a fixed second,
 * in the middle of that second, so that a tolerance edge does not depend on when the second
 * ticks over. Only `Date` is faked: timers, I/O and n8n-core keep running. Undo with
 * `jest.useRealTimers()`. Returns the frozen time in seconds.
 */
export function freezeClock(): number {
	const now = Math.floor(Date.now() / 1000);
	jest.useFakeTimers({
		doNotFake: [
			'hrtime',
			'nextTick',
			'performance',
			'queueMicrotask',
			'requestAnimationFrame',
			'cancelAnimationFrame',
			'requestIdleCallback',
			'cancelIdleCallback',
			'setImmediate',
			'clearImmediate',
			'setInterval',
			'clearInterval',
			'setTimeout',
			'clearTimeout',
		],
	});
	jest.setSystemTime(now * 1000 + 500);
	return now;
}

export { signedDelivery, type SignedDelivery } from './signed-delivery';

/**
 * For a trigger test file's beforeAll: a sandbox with a rate limit too high to matter (no pacing
 * in the way), whose refused deliveries are retried once after 10 ms (not over minutes).
 * `retry` changes the delivery settings.
 */
export async function startDeliveringSandbox(
	retry: Partial<WebhookRetry> = {},
): Promise<SandboxHandle> {
	return await startSandbox({
		port: 0,
		// A limit the nodes read in the headers, too high to refuse anything: no pacing in the way.
		rateLimit: UNPACED,
		webhookRetry: { baseMs: 10, maxAttempts: 2, timeoutMs: 2000, ...retry },
	});
}
