/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Network failures as older n8n hands them to the node. From about n8n 1.99 to 2.33,
 * NodeApiError drops the error it wraps (n8n-workflow 1.120.31 and 2.33.2,
 * execution-base.error.js: a `cause;` class field declared after `super()` set it, and set again
 * only for a cause that is not an Error), so the network code survives only in `httpCode` and
 * `messages`. Real connection failures on 127.0.0.1, wrapped by this n8n-workflow's NodeApiError,
 * then stripped of `cause` as those versions leave it: each is still classified.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from '@jest/globals';

import { NodeApiError } from 'n8n-workflow';

import { answerFromError, networkCodeFromError } from '../../nodes/shared/transport/attempt';
import { errorChain } from '../../nodes/shared/transport/apiError';
import { erpNode } from './helpers';

const node = erpNode;

/** The error of a GET to `url` (it must fail without an answer). */
async function failedGet(url: string): Promise<Error> {
	return await new Promise((resolve, reject) => {
		http
			.get(url, () => reject(new Error('an answer came')))
			.on('error', resolve)
			.end();
	});
}

/** A server that closes every connection at once (a reset), and a port nothing listens on. */
async function failures(): Promise<{ reset: Error; refused: Error }> {
	const server = http.createServer((req) => req.socket.resetAndDestroy());
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const reset = await failedGet(`http://127.0.0.1:${port}/v1/articles`);
	await new Promise((resolve) => server.close(resolve));
	const refused = await failedGet(`http://127.0.0.1:${port}/v1/articles`);
	return { reset, refused };
}

/** NodeApiError as n8n ~1.99–2.33 leaves it: without its cause. */
function withoutCause(error: Error): NodeApiError {
	const wrapped = new NodeApiError(node, error as never);
	Object.defineProperty(wrapped, 'cause', { value: undefined });
	return wrapped;
}

describe('network failures wrapped by NodeApiError without its cause', () => {
	test('a reset and a refused connection are still classified', async () => {
		const { reset, refused } = await failures();
		assert.equal((reset as NodeJS.ErrnoException).code, 'ECONNRESET');
		assert.equal((refused as NodeJS.ErrnoException).code, 'ECONNREFUSED');
		for (const [error, code] of [
			[reset, 'ECONNRESET'],
			[refused, 'ECONNREFUSED'],
		] as const) {
			const chain = errorChain(withoutCause(error));
			assert.equal(chain.length, 1, 'the cause is gone, as in those versions');
			assert.equal(networkCodeFromError(chain), code);
			// With the cause (n8n 2.34 and later, and 1.x before ~1.99): the same answer.
			assert.equal(networkCodeFromError(errorChain(new NodeApiError(node, error as never))), code);
		}
	});

	test('control: without httpCode and messages, nothing says it was the network', async () => {
		const { reset } = await failures();
		const stripped = withoutCause(reset);
		stripped.httpCode = null;
		stripped.messages = [];
		stripped.message = 'Something failed';
		stripped.description = undefined;
		assert.equal(networkCodeFromError(errorChain(stripped)), undefined);
	});

	test('a timeout and a hang-up named only in the text', () => {
		assert.equal(
			networkCodeFromError([{ messages: ['timeout of 30000ms exceeded'] }]),
			'ETIMEDOUT',
		);
		assert.equal(networkCodeFromError([{ message: 'socket hang up' }]), 'ECONNRESET');
		assert.equal(
			networkCodeFromError([{ httpCode: '503', message: 'Service unavailable' }]),
			undefined,
		);
	});

	test('an HTTP answer thrown as an error keeps its status and body in httpCode and context', () => {
		const thrown = Object.assign(new Error('Request failed with status code 503'), {
			response: {
				status: 503,
				headers: { 'retry-after': '1' },
				data: { error: { code: 'unavailable' } },
			},
		});
		const kept = errorChain(withoutCause(thrown));
		assert.equal(kept.length, 1);
		assert.deepEqual(answerFromError(kept), {
			status: 503,
			headers: {},
			body: { error: { code: 'unavailable' } },
		});
		// Control: with its cause, the answer is read from the response itself, headers included.
		assert.deepEqual(
			answerFromError(errorChain(new NodeApiError(node, thrown as never)))?.headers,
			{
				'retry-after': '1',
			},
		);
	});
});
