/* eslint-disable @n8n/community-nodes/no-restricted-imports */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import type {
	IDataObject,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import {
	HTTP_CALL_NODE_TYPE,
	httpCallNode,
	startRecordingServer,
	testNodeDescription,
} from './fixtures';
import type { RecordingServer } from './fixtures';
import { START_NODE_NAME, TestCredentials, runWorkflow } from './index';

/** Generic (declarative) authenticate, with an expression, as most n8n credentials do. */
const genericApi: ICredentialType = {
	name: 'genericApi',
	displayName: 'Generic',
	properties: [
		{ displayName: 'Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
		{ displayName: 'Prefix', name: 'prefix', type: 'string', default: 'Bearer' },
	],
	authenticate: {
		type: 'generic',
		properties: {
			headers: { Authorization: '={{$credentials.prefix + " " + $credentials.apiKey}}' },
			qs: { tenant: 'acme' },
		},
	},
};

/** Function authenticate with a guard that throws before any request. */
const guardedApi: ICredentialType = {
	name: 'guardedApi',
	displayName: 'Guarded',
	properties: [{ displayName: 'Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' }],
	authenticate: async (credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions) => {
		if (!String(credentials.apiKey).startsWith('sk_test_')) throw new Error('Refused: not a test key');
		return { ...requestOptions, headers: { ...requestOptions.headers, 'X-Api-Key': String(credentials.apiKey) } };
	},
};

/** preAuthentication of an expirable session token, as n8n's CLI runs it. */
const sessionApi: ICredentialType = {
	name: 'sessionApi',
	displayName: 'Session',
	properties: [
		{ displayName: 'Login URL', name: 'loginUrl', type: 'string', default: '' },
		{ displayName: 'Password', name: 'password', type: 'string', typeOptions: { password: true }, default: '' },
		{ displayName: 'Session', name: 'sessionToken', type: 'hidden', typeOptions: { expirable: true }, default: '' },
	],
	async preAuthentication(this, credentials) {
		const answer = (await this.helpers.httpRequest({
			method: 'POST',
			url: String(credentials.loginUrl),
			body: { password: credentials.password },
			json: true,
		})) as { token: string };
		return { sessionToken: answer.token };
	},
	authenticate: {
		type: 'generic',
		properties: { headers: { 'X-Session': '={{$credentials.sessionToken}}' } },
	},
};

const types = { genericApi, guardedApi, sessionApi };

/** Copies its input, counts its runs in the node's static data, and fails on `fail: true` items. */
const countNode: INodeType = {
	description: testNodeDescription('count', 'Count', { properties: [] }),
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const staticData = this.getWorkflowStaticData('node');
		staticData.runs = ((staticData.runs as number | undefined) ?? 0) + 1;
		const out = this.getInputData().map((item, i) => ({
			json: { ...item.json, runs: staticData.runs },
			pairedItem: { item: i },
		}));
		return [out];
	},
};

/** Fails on its first `failures` executions (counted across retries), then copies its input. */
function flakyNode(failures: number): INodeType {
	let calls = 0;
	return {
		description: { ...countNode.description, name: 'flaky', displayName: 'Flaky' },
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			calls += 1;
			if (calls <= failures) throw new Error(`flaky failure ${calls}`);
			return [this.getInputData().map((item) => ({ json: { ...item.json, calls } }))];
		},
	};
}

describe('runWorkflow', () => {
	let server: RecordingServer;
	beforeAll(async () => {
		server = await startRecordingServer((req) =>
			req.url.startsWith('/login')
				? { status: 200, body: { token: 'session-1' } }
				: { status: 200, body: { path: req.url } },
		);
	});
	afterAll(async () => await server.close());

	const call = (credentialType: string, path = '/thing') => ({
		name: 'Call',
		type: HTTP_CALL_NODE_TYPE,
		parameters: { credentialType, url: `${server.url}${path}` },
	});
	/** Runs Start -> Call with these credentials, the fixture node declaring `credentialType`. */
	const runCall = (
		credentialType: string,
		credentials: TestCredentials,
		options: { continueOnFail?: boolean; input?: IDataObject[] } = {},
	) =>
		runWorkflow({
			nodes: [{ ...call(credentialType), continueOnFail: options.continueOnFail }],
			input: options.input,
			credentials,
			extraNodeTypes: { [HTTP_CALL_NODE_TYPE]: credentialNode([credentialType]) },
		});

	test('items flow from the start node through a chain, with paired items', async () => {
		const result = await runWorkflow({
			nodes: [
				{ name: 'A', type: 'test.count' },
				{ name: 'B', type: 'test.count' },
			],
			input: [{ n: 1 }, { n: 2 }],
			credentials: new TestCredentials({}),
			workflowId: 'flow',
			extraNodeTypes: { 'test.count': countNode },
		});
		assert.equal(result.success, true);
		assert.deepEqual(result.output(START_NODE_NAME), [{ n: 1 }, { n: 2 }]);
		assert.deepEqual(result.output('B'), [
			{ n: 1, runs: 1 },
			{ n: 2, runs: 1 },
		]);
		assert.deepEqual(
			result.items('B').map((i) => i.pairedItem),
			[{ item: 0 }, { item: 1 }],
		);
		assert.throws(() => result.output('Nope'), /did not run/);
	});

	test('static data is saved after production runs of the same workflow id only, not manual ones', async () => {
		const run = (workflowId: string, mode: 'manual' | 'trigger') =>
			runWorkflow({
				nodes: [{ name: 'A', type: 'test.count' }],
				credentials: new TestCredentials({}),
				workflowId,
				mode,
				extraNodeTypes: { 'test.count': countNode },
			});
		await run('static-1', 'trigger');
		const second = await run('static-1', 'trigger');
		assert.equal(second.output('A')[0].runs, 2);
		assert.deepEqual(second.staticData, { 'node:A': { runs: 2 } });
		const other = await run('static-2', 'trigger');
		assert.equal(other.output('A')[0].runs, 1);
		// A manual run sees the saved data but its changes are dropped, as in n8n.
		const manual = await run('static-1', 'manual');
		assert.equal(manual.output('A')[0].runs, 3);
		assert.equal((await run('static-1', 'trigger')).output('A')[0].runs, 3);
	});

	test('generic authenticate is applied with its expressions resolved', async () => {
		const credentials = new TestCredentials({ genericApi: { apiKey: 'k-123' } }, { types });
		const result = await runCall('genericApi', credentials);
		assert.equal(result.success, true, result.error?.message);
		const request = server.requests.at(-1)!;
		assert.equal(request.headers.authorization, 'Bearer k-123');
		assert.equal(request.url, '/thing?tenant=acme');
		assert.deepEqual(result.output('Call'), [{ path: '/thing?tenant=acme' }]);
	});

	test('function authenticate is applied', async () => {
		const credentials = new TestCredentials({ guardedApi: { apiKey: 'sk_test_1' } }, { types });
		const result = await runCall('guardedApi', credentials);
		assert.equal(result.success, true, result.error?.message);
		assert.equal(server.requests.at(-1)!.headers['x-api-key'], 'sk_test_1');
	});

	test('a function authenticate that throws sends no request and fails the run', async () => {
		const before = server.requests.length;
		const credentials = new TestCredentials({ guardedApi: { apiKey: 'sk_live_1' } }, { types });
		const result = await runCall('guardedApi', credentials);
		assert.equal(result.success, false);
		assert.match(result.error!.message, /Refused: not a test key/);
		assert.equal(server.requests.length, before);
	});

	test('continueOnFail turns the failure into error items and the run succeeds', async () => {
		const credentials = new TestCredentials({ guardedApi: { apiKey: 'sk_live_1' } }, { types });
		const result = await runCall('guardedApi', credentials, { continueOnFail: true, input: [{}, {}] });
		assert.equal(result.success, true);
		const out = result.output('Call');
		assert.equal(out.length, 2);
		for (const item of out) assert.match(String(item.error), /Refused: not a test key/);
	});

	test('retryOnFail re-runs the node as n8n does', async () => {
		const result = await runWorkflow({
			nodes: [{ name: 'F', type: 'test.flaky', retryOnFail: true, maxTries: 3, waitBetweenTries: 1 }],
			credentials: new TestCredentials({}),
			extraNodeTypes: { 'test.flaky': flakyNode(2) },
		});
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(result.output('F'), [{ calls: 3 }]);

		const failing = await runWorkflow({
			nodes: [{ name: 'F', type: 'test.flaky', retryOnFail: true, maxTries: 2, waitBetweenTries: 1 }],
			credentials: new TestCredentials({}),
			extraNodeTypes: { 'test.flaky': flakyNode(2) },
		});
		assert.equal(failing.success, false);
		assert.match(failing.error!.message, /flaky failure 2/);
	});

	test('preAuthentication fetches an expirable token, which is persisted and reused', async () => {
		const credentials = new TestCredentials(
			{ sessionApi: { password: 'pw', loginUrl: `${server.url}/login` } },
			{ types },
		);
		const run = () => runCall('sessionApi', credentials);
		const first = await run();
		assert.equal(first.success, true, first.error?.message);
		assert.equal(server.requests.at(-1)!.headers['x-session'], 'session-1');
		assert.equal(credentials.updates.length, 1);
		assert.equal(credentials.get('sessionApi').sessionToken, 'session-1');

		const logins = server.requests.filter((r) => r.url.startsWith('/login')).length;
		await run();
		assert.equal(server.requests.filter((r) => r.url.startsWith('/login')).length, logins);
		assert.equal(credentials.updates.length, 1);
	});
});

/** The fixture node, declaring the given credential types (so they are bound by default). */
function credentialNode(credentialTypes: string[]): INodeType {
	return {
		...httpCallNode,
		description: {
			...httpCallNode.description,
			credentials: credentialTypes.map((name) => ({ name, required: false })),
		},
	};
}
