/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import type { ICredentialType } from 'n8n-workflow';

import { DEMO_OAUTH_CLIENT, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { HTTP_CALL_NODE_TYPE, httpCallNode, startRecordingServer } from './fixtures';
import type { RecordingServer } from './fixtures';
import { TestCredentials, connectOAuth2, runWorkflow } from './index';

/** A credential type built like ErpOAuth2Api: extends n8n's oAuth2Api with grant type PKCE. */
const testOAuth2Api: ICredentialType = {
	name: 'testOAuth2Api',
	displayName: 'Test OAuth2',
	extends: ['oAuth2Api'],
	properties: [
		{ displayName: 'Grant Type', name: 'grantType', type: 'hidden', default: 'pkce' },
		{ displayName: 'Scope', name: 'scope', type: 'hidden', default: '={{$self["scopes"].join(" ")}}' },
		{ displayName: 'Scopes', name: 'scopes', type: 'multiOptions', options: [], default: ['articles:read'] },
	],
};
const types = { testOAuth2Api };
const node = {
	...httpCallNode,
	description: { ...httpCallNode.description, credentials: [{ name: 'testOAuth2Api', required: true }] },
};

describe('OAuth2 through n8n-core (tiny token server)', () => {
	// Access tokens at-N, refresh tokens rt-N, rotated at each refresh; one valid pair at a time.
	let valid = { access: 'at-1', refresh: 'rt-0' };
	let issued = 0;
	let server: RecordingServer;
	beforeAll(async () => {
		server = await startRecordingServer((req) => {
			if (req.url === '/token') {
				const form = new URLSearchParams(req.body);
				if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== valid.refresh) {
					return { status: 400, body: { error: 'invalid_grant' } };
				}
				issued += 1;
				valid = { access: `at-${issued + 1}`, refresh: `rt-${issued}` };
				return {
					status: 200,
					body: { access_token: valid.access, refresh_token: valid.refresh, token_type: 'Bearer', expires_in: 3600 },
				};
			}
			return req.headers.authorization === `Bearer ${valid.access}`
				? { status: 200, body: { ok: true } }
				: { status: 401, body: { error: 'expired' } };
		});
	});
	afterAll(async () => await server.close());

	const run = (credentials: TestCredentials) =>
		runWorkflow({
			nodes: [{ name: 'Call', type: HTTP_CALL_NODE_TYPE, parameters: { credentialType: 'testOAuth2Api', url: `${server.url}/resource` } }],
			credentials,
			extraNodeTypes: { [HTTP_CALL_NODE_TYPE]: node },
		});
	const tokenRequests = () => server.requests.filter((r) => r.url === '/token');

	test('an expired token is refreshed, persisted through updateCredentialsOauthTokenData and reused', async () => {
		const credentials = new TestCredentials(
			{
				testOAuth2Api: {
					clientId: 'client',
					clientSecret: 'secret',
					authUrl: `${server.url}/authorize`,
					accessTokenUrl: `${server.url}/token`,
					oauthTokenData: { access_token: 'at-0', refresh_token: 'rt-0', token_type: 'Bearer' },
				},
			},
			{ types },
		);
		const first = await run(credentials);
		assert.equal(first.success, true, first.error?.message);
		assert.equal(tokenRequests().length, 1);
		assert.equal(credentials.updates.length, 1);
		assert.equal(credentials.updates[0].type, 'testOAuth2Api');
		const stored = credentials.get('testOAuth2Api').oauthTokenData as Record<string, string>;
		assert.equal(stored.access_token, 'at-2');
		assert.equal(stored.refresh_token, 'rt-1');
		// The client authenticated as n8n does by default (Basic header).
		assert.match(String(tokenRequests()[0].headers.authorization), /^Basic /);

		// The next run uses the stored token without refreshing.
		const second = await run(credentials);
		assert.equal(second.success, true);
		assert.equal(tokenRequests().length, 1);

		// When the access token expires again, the rotated refresh token is the one sent.
		valid = { ...valid, access: 'at-expired' };
		const third = await run(credentials);
		assert.equal(third.success, true, third.error?.message);
		assert.equal(new URLSearchParams(tokenRequests().at(-1)!.body).get('refresh_token'), 'rt-1');
		assert.equal(credentials.updates.length, 2);
		assert.equal((credentials.get('testOAuth2Api').oauthTokenData as Record<string, string>).refresh_token, 'rt-2');

		// A dead refresh token gives n8n's "reconnect" error and no update.
		credentials.set('testOAuth2Api', {
			...credentials.get('testOAuth2Api'),
			oauthTokenData: { access_token: 'at-0', refresh_token: 'rt-1', token_type: 'Bearer' },
		});
		const fourth = await run(credentials);
		assert.equal(fourth.success, false);
		assert.match(fourth.error!.message, /needs to be reconnected/);
		assert.equal(credentials.updates.length, 2);
	});
});

describe("OAuth2's Token Expired Status Code (a field of n8n's oAuth2Api)", () => {
	// n8n's oAuth2Api marks the field doNotInherit: a credential that extends it declares its own.
	const expiring: ICredentialType = {
		...testOAuth2Api,
		name: 'expiringOAuth2Api',
		properties: [
			...testOAuth2Api.properties,
			{ displayName: 'Token Expired Status Code', name: 'tokenExpiredStatusCode', type: 'number', default: 401 },
		],
	};
	const expiringNode = {
		...httpCallNode,
		description: { ...httpCallNode.description, credentials: [{ name: 'expiringOAuth2Api', required: true }] },
	};
	let server: RecordingServer;
	beforeAll(async () => {
		// An API that answers 403, not 401, to an expired access token.
		server = await startRecordingServer((req) => {
			if (req.url === '/token')
				return {
					status: 200,
					body: { access_token: 'at-fresh', refresh_token: 'rt-next', token_type: 'Bearer', expires_in: 3600 },
				};
			return req.headers.authorization === 'Bearer at-fresh'
				? { status: 200, body: { ok: true } }
				: { status: 403, body: { error: 'expired' } };
		});
	});
	afterAll(async () => await server.close());

	const run = (tokenExpiredStatusCode?: number) =>
		runWorkflow({
			nodes: [{ name: 'Call', type: HTTP_CALL_NODE_TYPE, parameters: { credentialType: 'expiringOAuth2Api', url: `${server.url}/resource` } }],
			credentials: new TestCredentials(
				{
					expiringOAuth2Api: {
						clientId: 'client',
						clientSecret: 'secret-403-test',
						authUrl: `${server.url}/authorize`,
						accessTokenUrl: `${server.url}/token`,
						...(tokenExpiredStatusCode === undefined ? {} : { tokenExpiredStatusCode }),
						oauthTokenData: { access_token: 'at-old', refresh_token: 'rt-0', token_type: 'Bearer' },
					},
				},
				{ types: { expiringOAuth2Api: expiring } },
			),
			extraNodeTypes: { [HTTP_CALL_NODE_TYPE]: expiringNode },
		});
	const tokenRequests = () => server.requests.filter((r) => r.url === '/token').length;

	test('set to 403, a 403 refreshes the token; left at 401, a 403 is an error and nothing is refreshed', async () => {
		const refreshed = await run(403);
		assert.equal(refreshed.success, true, refreshed.error?.message);
		assert.equal(tokenRequests(), 1);

		const refused = await run();
		assert.equal(refused.success, false);
		assert.equal(tokenRequests(), 1, 'no refresh on a 403 when 401 means expired');
	});
});

describe('connectOAuth2 against the sandbox', () => {
	let sandbox: SandboxHandle;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, tokenLifetimes: { accessTokenSeconds: 0.3 } });
	});
	afterAll(async () => await sandbox.close());

	test('the PKCE flow yields a token that authorizes requests and is refreshed when it expires', async () => {
		const credentials = new TestCredentials(
			{
				testOAuth2Api: {
					clientId: DEMO_OAUTH_CLIENT.clientId,
					clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
					authUrl: `${sandbox.url}/oauth/authorize`,
					accessTokenUrl: `${sandbox.url}/oauth/token`,
					scopes: ['articles:read', 'clients:read'],
				},
			},
			{ types },
		);
		await connectOAuth2(credentials, 'testOAuth2Api');
		const token = credentials.get('testOAuth2Api').oauthTokenData as Record<string, string>;
		assert.equal(token.token_type, 'Bearer');
		assert.equal(token.scope, 'articles:read clients:read');
		assert.equal(credentials.updates.length, 0);

		const run = () =>
			runWorkflow({
				nodes: [
					{ name: 'Call', type: HTTP_CALL_NODE_TYPE, parameters: { credentialType: 'testOAuth2Api', url: `${sandbox.baseUrl}/articles?limit=2` } },
				],
				credentials,
				extraNodeTypes: { [HTTP_CALL_NODE_TYPE]: node },
			});
		await new Promise((resolve) => setTimeout(resolve, 400));
		const result = await run();
		assert.equal(result.success, true, result.error?.message);
		assert.equal((result.output('Call')[0].data as unknown[]).length, 2);
		assert.equal(credentials.updates.length, 1);
		const rotated = credentials.get('testOAuth2Api').oauthTokenData as Record<string, string>;
		assert.notEqual(rotated.refresh_token, token.refresh_token);
		assert.notEqual(rotated.access_token, token.access_token);
	});
});
