/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * One sandbox for a test file: started (on a free port) before the file's first test, stopped
 * after its last, and reset to its seed around each test if asked. Jest only: it registers the
 * hooks where it is called, so it is not exported from index.ts (the benchmarks load that).
 */
import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';

import { call, control, startSandbox } from '../../sandbox';
import type { Answer, CallOptions, SandboxHandle, SandboxOptions } from '../../sandbox';

export interface SandboxUnderTest {
	/** http://127.0.0.1:PORT (control API) */
	readonly url: string;
	/** url + '/v1' */
	readonly baseUrl: string;
	/** A direct API call (the demo full-access key unless `options.key` says otherwise). */
	api(method: string, path: string, options?: CallOptions): Promise<Answer>;
}

export function useSandbox(
	options: SandboxOptions & {
		/** Reset the sandbox (and check the reset answered 200) before or after each test. */
		reset?: 'beforeEach' | 'afterEach';
	} = {},
): SandboxUnderTest {
	const { reset, ...sandboxOptions } = options;
	let handle: SandboxHandle | undefined;
	const started = (): SandboxHandle => {
		assert.ok(handle, 'the sandbox is started in beforeAll');
		return handle;
	};
	beforeAll(async () => {
		handle = await startSandbox({ port: 0, ...sandboxOptions });
	});
	afterAll(async () => {
		await handle?.close();
	});
	const resetSandbox = async () => {
		const answer = await control(started().url, 'reset', {});
		assert.equal(answer.status, 200, answer.text);
	};
	if (reset === 'beforeEach') beforeEach(resetSandbox);
	if (reset === 'afterEach') afterEach(resetSandbox);
	return {
		get url() {
			return started().url;
		},
		get baseUrl() {
			return started().baseUrl;
		},
		api: (method, path, callOptions) => call(started().baseUrl, method, path, callOptions),
	};
}
