/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * ErpOAuth2Api through real workflows against the sandbox's OAuth2 server: a token obtained with
 * the PKCE flow, refresh with rotation persisted and reused, and the "reconnect" error when a
 * used refresh token is refused. The scope defaults come from the credential type itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ErpOAuth2Api } from '../../credentials/ErpOAuth2Api.credentials';
import { DEMO_OAUTH_CLIENT } from '../../sandbox';
import { TestCredentials, connectOAuth2 } from '../harness';
import { useSandbox } from '../harness/sandbox';
import { control, runCall, stats } from '../transport/helpers';

describe('ERP OAuth2 credential', () => {
	const sb = useSandbox();

	/** A credential as a user saves it: only the visible fields; URLs and scope come from defaults. */
	const credential = () =>
		new TestCredentials({
			erpOAuth2Api: {
				environment: 'sandbox',
				baseUrl: sb.baseUrl,
				clientId: DEMO_OAUTH_CLIENT.clientId,
				clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
			},
		});
	const oauth = { authentication: 'oAuth2' };
	const tokenData = (c: TestCredentials) => c.get('erpOAuth2Api').oauthTokenData as IDataObject;
	const tokenCalls = async () => (await stats(sb.url)).byPath['POST /oauth/token'] ?? 0;

	test('PKCE connect with the default least-privilege scopes, then API calls with the token', async () => {
		const credentials = credential();
		const defaults = await credentials.getDecrypted(
			{} as never,
			{ id: 'harness-erpOAuth2Api', name: 'x' },
			'erpOAuth2Api',
			'internal',
		);
		assert.equal(defaults.grantType, 'pkce');
		assert.equal(defaults.scope, 'articles:read clients:read factures:read');
		assert.equal(defaults.authUrl, `${sb.url}/oauth/authorize`);
		assert.equal(defaults.accessTokenUrl, `${sb.url}/oauth/token`);

		await connectOAuth2(credentials);
		const token = tokenData(credentials);
		assert.equal(typeof token.access_token, 'string');
		assert.equal(token.scope, 'articles:read clients:read factures:read');

		const read = await runCall(credentials, { ...oauth, path: '/articles', qs: '{"limit": 2}' });
		assert.equal(read.success, true, read.error?.message);
		assert.equal((read.output('Call')[0].data as IDataObject[]).length, 2);

		// Least privilege: writing articles needs a scope the default does not request.
		const write = await runCall(
			credentials,
			{
				...oauth,
				method: 'POST',
				path: '/articles',
				body: '{"reference":"O-1","designation":"x","prix_ht":1,"tva":0}',
			},
			{ continueOnFail: true },
		);
		const [error] = write.output('Call');
		assert.equal(error.httpCode, 403);
		assert.match(String(error.message), /needs the scope articles:write/);
		assert.match(
			String(error.description),
			/Add the scope in the credential's Scopes and reconnect it/,
		);
		assert.ok(!JSON.stringify(error).includes(String(token.access_token)), 'no token in the error');
	});

	/** The data n8n resolves for a saved credential (hidden fields from their defaults). */
	const resolved = async (data: IDataObject) =>
		await new TestCredentials({
			erpOAuth2Api: { environment: 'sandbox', baseUrl: sb.baseUrl, ...data },
		}).getDecrypted(
			{} as never,
			{ id: 'harness-erpOAuth2Api', name: 'x' },
			'erpOAuth2Api',
			'internal',
		);

	test('emptied Scopes still ask for the least-privilege default; a choice is sent as chosen', async () => {
		const fallback = 'articles:read clients:read factures:read';
		// n8n's editor saves an untouched multi-select as [] (issue 15); a text value may be blank.
		assert.equal((await resolved({ scopes: [] })).scope, fallback);
		assert.equal((await resolved({ scopes: ' ' })).scope, fallback);
		// Control: a real choice is not replaced by the default.
		assert.equal(
			(await resolved({ scopes: ['articles:read', 'articles:write'] })).scope,
			'articles:read articles:write',
		);

		// The form says what an empty Scopes asks for, in a hint shown under the field (not only a tooltip).
		const scopes = new ErpOAuth2Api().properties.find((p) => p.name === 'scopes');
		assert.equal(scopes?.hint, `Left empty, the read-only default is asked for: ${fallback}`);

		// A connect with [] is granted the default.
		const credentials = new TestCredentials({
			erpOAuth2Api: {
				environment: 'sandbox',
				baseUrl: sb.baseUrl,
				clientId: DEMO_OAUTH_CLIENT.clientId,
				clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
				scopes: [],
			},
		});
		await connectOAuth2(credentials);
		assert.equal(tokenData(credentials).scope, fallback);
	});

	test('the OAuth addresses follow the Base URL unless Custom OAuth Addresses is on', async () => {
		const production = { environment: 'production', baseUrl: 'https://erp.example.com/v1/' };
		const derived = await resolved(production);
		assert.equal(derived.authUrl, 'https://erp.example.com/oauth/authorize');
		assert.equal(derived.accessTokenUrl, 'https://erp.example.com/oauth/token');
		const custom = await resolved({
			...production,
			customOAuthUrls: true,
			customAuthUrl: ' https://login.example.com/authorize ',
			customAccessTokenUrl: 'https://login.example.com/token',
		});
		assert.equal(custom.authUrl, 'https://login.example.com/authorize');
		assert.equal(custom.accessTokenUrl, 'https://login.example.com/token');
		// Addresses typed while the switch is off are not used.
		const off = await resolved({
			...production,
			customOAuthUrls: false,
			customAuthUrl: 'https://other.example.com/a',
		});
		assert.equal(off.authUrl, 'https://erp.example.com/oauth/authorize');
	});

	test('an expired access token is refreshed; the rotated refresh token is persisted and used next time', async () => {
		await control(sb.url, 'config', { tokenLifetimes: { accessTokenSeconds: 2 } });
		try {
			const credentials = credential();
			await connectOAuth2(credentials);
			const first = tokenData(credentials);
			await sleep(2100);

			const callsBefore = await tokenCalls();
			const run1 = await runCall(credentials, { ...oauth, path: '/articles', qs: '{"limit": 1}' });
			assert.equal(run1.success, true, run1.error?.message);
			assert.equal((await tokenCalls()) - callsBefore, 1, 'one refresh');
			const second = tokenData(credentials);
			assert.notEqual(second.refresh_token, first.refresh_token, 'rotated');
			assert.notEqual(second.access_token, first.access_token);
			assert.equal(credentials.updates.length, 1, 'persisted through n8n');

			await sleep(2100);
			const run2 = await runCall(credentials, { ...oauth, path: '/articles', qs: '{"limit": 1}' });
			assert.equal(run2.success, true, run2.error?.message);
			const third = tokenData(credentials);
			assert.notEqual(
				third.refresh_token,
				second.refresh_token,
				'the persisted token was accepted and rotated again',
			);
			assert.equal(credentials.updates.length, 2);
		} finally {
			await control(sb.url, 'config', { tokenLifetimes: { accessTokenSeconds: 3600 } });
		}
	});

	test('a reused refresh token gives a clear "reconnect the credential" error', async () => {
		await control(sb.url, 'config', { tokenLifetimes: { accessTokenSeconds: 2 } });
		try {
			const credentials = credential();
			await connectOAuth2(credentials);
			const stale = credentials.get('erpOAuth2Api');
			await sleep(2100);
			const refreshed = await runCall(credentials, {
				...oauth,
				path: '/articles',
				qs: '{"limit": 1}',
			});
			assert.equal(refreshed.success, true, refreshed.error?.message);

			// Another copy of the credential (say, restored from a backup) still holds the used refresh token.
			credentials.set('erpOAuth2Api', stale);
			const result = await runCall(credentials, {
				...oauth,
				path: '/articles',
				qs: '{"limit": 1}',
			});
			assert.equal(result.success, false);
			assert.match(
				result.error?.message ?? '',
				/OAuth2 credential must be reconnected: the ERP refused its refresh token/,
			);
			assert.match(String((result.error as IDataObject | undefined)?.description), /Reconnect/);
			assert.ok(
				!(result.error?.message ?? '').includes(
					String((stale.oauthTokenData as IDataObject).refresh_token),
				),
			);
		} finally {
			await control(sb.url, 'config', { tokenLifetimes: { accessTokenSeconds: 3600 } });
		}
	});

	test('a credential that was never connected says so', async () => {
		const before = (await stats(sb.url)).requests;
		const result = await runCall(credential(), { ...oauth, path: '/articles' });
		assert.equal(result.success, false);
		assert.match(result.error?.message ?? '', /OAuth2 credential is not connected yet/);
		assert.equal((await stats(sb.url)).requests, before, 'nothing sent');
	});
});
