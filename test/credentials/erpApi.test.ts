/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * ErpApi: the `authenticate` function guards every request n8n sends with the credential — our
 * transport, the credential test and the HTTP Request node alike — and adds the Bearer header.
 * The credential test request is run the way n8n's credentials tester runs it: as a declarative
 * (routing) node, here through n8n-core's WorkflowExecute against the sandbox.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IHttpRequestOptions, INodeType } from 'n8n-workflow';

import { ErpApi } from '../../credentials/ErpApi.credentials';
import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { runWorkflow } from '../harness';
import {
	CREDENTIAL_TEST_TYPE,
	credentialTestNode,
	credentialTestVerdict,
} from '../harness/credential-test';
import { HTTP_CALL_NODE_TYPE, httpCallNode } from '../harness/fixtures';
import { useSandbox } from '../harness/sandbox';
import { apiKeyCredentials, newKey, stats } from '../transport/helpers';

const credentialType = new ErpApi();

/** The harness's generic HTTP node, declaring erpApi as n8n's HTTP Request node does for a predefined type. */
const httpNode: INodeType = {
	...httpCallNode,
	description: { ...httpCallNode.description, credentials: [{ name: 'erpApi', required: true }] },
};

const CREDENTIAL_TEST_NODE = credentialTestNode('erpApi', credentialType.test);

describe('ErpApi credential', () => {
	const sb = useSandbox({ reset: 'afterEach' });

	test('authenticate refuses mismatches without showing the key, and adds the Bearer header', async () => {
		const request: IHttpRequestOptions = {
			url: 'https://erp.example.com/v1/articles',
			headers: { Accept: 'application/json' },
		};
		const refusals: Array<[Record<string, string>, RegExp]> = [
			[
				{
					apiKey: 'sk_test_abc123',
					environment: 'production',
					baseUrl: 'https://erp.example.com/v1',
				},
				/sandbox key \(sk_test_\) but the credential's Environment is Production/,
			],
			[
				{
					apiKey: 'sk_live_abc123',
					environment: 'sandbox',
					baseUrl: 'https://sandbox.erp.example.com/v1',
				},
				/production key \(sk_live_\) but the credential's Environment is Sandbox/,
			],
			[
				{ apiKey: 'abc123', environment: 'production', baseUrl: 'https://erp.example.com/v1' },
				/not an ERP API key/,
			],
			[
				{
					apiKey: 'sk_live_abc123',
					environment: 'production',
					baseUrl: 'http://erp.example.com/v1',
				},
				/must use https:\/\//,
			],
			[
				{
					apiKey: 'sk_live_abc123',
					environment: 'production',
					baseUrl: 'https://erp.example.com/api',
				},
				/must end in \/v1/,
			],
		];
		for (const [credentials, message] of refusals) {
			await assert.rejects(credentialType.authenticate(credentials, request), (error: Error) => {
				assert.match(error.message, message);
				assert.ok(!error.message.includes('abc123'));
				return true;
			});
		}
		for (const baseUrl of [
			'http://localhost:4010/v1',
			'http://127.0.0.1:4010/v1/',
			'http://[::1]:4010/v1',
			'https://erp.example.com/v1',
		]) {
			const signed = await credentialType.authenticate(
				{ apiKey: ' sk_test_abc123 ', environment: 'sandbox', baseUrl },
				{ ...request, url: `${baseUrl.replace(/\/$/, '')}/articles` },
			);
			assert.deepEqual(signed.headers, {
				Accept: 'application/json',
				Authorization: 'Bearer sk_test_abc123',
			});
		}
		assert.deepEqual(
			request.headers,
			{ Accept: 'application/json' },
			'the incoming options are not changed',
		);
	});

	test('the credential test calls GET /articles?limit=1 and is guarded', async () => {
		const run = (apiKey: string, environment: string) =>
			runWorkflow({
				nodes: [{ name: 'Credential Test', type: CREDENTIAL_TEST_TYPE }],
				credentials: apiKeyCredentials(`${sb.baseUrl}/`, apiKey, environment),
				extraNodeTypes: { [CREDENTIAL_TEST_TYPE]: CREDENTIAL_TEST_NODE },
			});

		const mismatch = await run(DEMO_KEYS.full, 'production');
		assert.equal(mismatch.success, false);
		assert.match(
			mismatch.error?.message ?? '',
			/sandbox key \(sk_test_\) but the credential's Environment is Production/,
		);
		assert.equal((await stats(sb.url)).requests, 0, 'nothing reached the sandbox');

		const good = await run(DEMO_KEYS.full, 'sandbox');
		assert.equal(good.success, true, good.error?.message);
		assert.equal((good.output('Credential Test')[0].data as unknown[]).length, 1);
		assert.deepEqual((await stats(sb.url)).byPath, { 'GET /v1/articles': 1 });
		assert.deepEqual(credentialTestVerdict(good, credentialType.test), {
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	test("the credential test's rules give the 401 and 403 messages n8n shows", async () => {
		const run = async (apiKey: string) =>
			credentialTestVerdict(
				await runWorkflow({
					nodes: [{ name: 'Credential Test', type: CREDENTIAL_TEST_TYPE }],
					credentials: apiKeyCredentials(sb.baseUrl, apiKey, 'sandbox'),
					extraNodeTypes: { [CREDENTIAL_TEST_TYPE]: CREDENTIAL_TEST_NODE },
				}),
				credentialType.test,
			);
		assert.deepEqual(await run(`sk_test_${'0'.repeat(32)}`), {
			status: 'Error',
			message:
				'The ERP refused the API key: it is invalid, expired, revoked, or for the other environment',
		});
		assert.deepEqual(await run(await newKey(sb.url, ['clients:read'])), {
			status: 'Error',
			message: 'The API key works but lacks the articles:read scope used to test it',
		});
		// The verdicts come from real answers: the sandbox refused with exactly these two statuses.
		assert.deepEqual(Object.keys((await stats(sb.url)).byStatus).sort(), ['401', '403']);
	});

	test('the HTTP Request node path (predefined credential type) is guarded too', async () => {
		const run = (environment: string) =>
			runWorkflow({
				nodes: [
					{
						name: 'HTTP',
						type: HTTP_CALL_NODE_TYPE,
						parameters: { credentialType: 'erpApi', url: `${sb.baseUrl}/articles?limit=1` },
					},
				],
				credentials: apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full, environment),
				extraNodeTypes: { [HTTP_CALL_NODE_TYPE]: httpNode },
			});
		const refused = await run('production');
		assert.equal(refused.success, false);
		assert.match(refused.error?.message ?? '', /Environment is Production/);
		assert.equal((await stats(sb.url)).requests, 0);

		const allowed = await run('sandbox');
		assert.equal(allowed.success, true, allowed.error?.message);
		assert.equal((await stats(sb.url)).byStatus['200'], 1);
	});

	test("the key is only sent to the credential's own Base URL origin", async () => {
		const other = await startSandbox({ port: 0 });
		try {
			const result = await runWorkflow({
				nodes: [
					{
						name: 'HTTP',
						type: HTTP_CALL_NODE_TYPE,
						parameters: { credentialType: 'erpApi', url: `${other.baseUrl}/articles?limit=1` },
					},
				],
				credentials: apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full, 'sandbox'),
				extraNodeTypes: { [HTTP_CALL_NODE_TYPE]: httpNode },
			});
			assert.equal(result.success, false);
			assert.match(result.error?.message ?? '', /only sends its API key to its own Base URL/);
			assert.ok(!(result.error?.message ?? '').includes(DEMO_KEYS.full));
			assert.equal((await stats(other.url)).requests, 0, 'the other server saw nothing');
		} finally {
			await other.close();
		}
	});
});
