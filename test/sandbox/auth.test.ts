/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests: API keys (401 codes, revocation, scopes) and OAuth 2.0 Authorization Code + PKCE.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from '@jest/globals';
import { DEMO_KEYS, DEMO_OAUTH_CLIENT } from '../../sandbox';
import { call, control, errorCode, type Answer } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';

const sandbox = useSandbox({ rateLimit: false, reset: 'beforeEach' });
const api = sandbox.api;

describe('API keys', () => {
	it('answers 401 with the contract body for a missing, unknown or live key', async () => {
		const live = `sk_live_${'0'.repeat(16)}`;
		const cases: Array<[string | null, string]> = [
			[null, 'missing_credentials'],
			['sk_test_not_a_key', 'invalid_api_key'],
			['whatever', 'invalid_api_key'],
			[live, 'live_key_not_accepted'],
		];
		for (const [key, code] of cases) {
			const r = await api('GET', '/articles', { key });
			assert.equal(r.status, 401, code);
			assert.equal(errorCode(r), code);
		}
		const refused = await api('GET', '/articles', { key: live });
		assert.match(refused.json.error.message, /sandbox/i);
		assert.ok(!refused.text.includes(live), 'the key is not echoed');
		const basic = await api('GET', '/articles', {
			key: null,
			headers: { authorization: 'Basic Zm9vOmJhcg==' },
		});
		assert.equal(errorCode(basic), 'missing_credentials');
	});

	it('creates test keys with scopes and revokes them at once', async () => {
		const created = await control(sandbox.url, 'keys', { scopes: ['articles:read'], name: 'ci' });
		assert.equal(created.status, 201);
		const { key } = created.json;
		assert.match(key, /^sk_test_/);
		assert.equal((await api('GET', '/articles', { key })).status, 200);
		const forbidden = await api('GET', '/clients', { key });
		assert.equal(forbidden.status, 403);
		assert.equal(errorCode(forbidden), 'insufficient_scope');
		assert.match(forbidden.json.error.message, /clients:read/);
		assert.equal((await control(sandbox.url, 'keys/revoke', { key })).status, 200);
		const revoked = await api('GET', '/articles', { key });
		assert.equal(revoked.status, 401);
		assert.equal(errorCode(revoked), 'api_key_revoked');
		assert.equal(
			(await control(sandbox.url, 'keys/revoke', { key: 'sk_test_unknown' })).status,
			404,
		);
		assert.equal(
			errorCode(await control(sandbox.url, 'keys', { scopes: ['root'] })),
			'validation_failed',
		);
		await control(sandbox.url, 'reset', {});
		assert.equal(
			errorCode(await api('GET', '/articles', { key })),
			'invalid_api_key',
			'reset forgets test keys',
		);
	});

	it('enforces the scope table with 403 insufficient_scope', async () => {
		const ro = DEMO_KEYS.readonly;
		const allowed = [
			'/articles',
			'/articles/art_00000001',
			'/stock/mouvements',
			'/clients',
			'/clients/cli_00000001',
			'/factures',
			'/comptabilite/grand-livre',
		];
		for (const path of allowed)
			assert.equal((await api('GET', path, { key: ro })).status, 200, path);
		const writes: Array<[string, string, string]> = [
			['POST', '/articles', 'articles:write'],
			['PATCH', '/articles/art_00000001', 'articles:write'],
			['POST', '/clients', 'clients:write'],
			['PATCH', '/clients/cli_00000001', 'clients:write'],
			['POST', '/factures', 'factures:write'],
			['POST', '/reglements', 'factures:write'],
		];
		for (const [method, path, scope] of writes) {
			const r = await api(method, path, { key: ro, body: {} });
			assert.equal(r.status, 403, `${method} ${path}`);
			assert.match(r.json.error.message, new RegExp(scope));
		}
		const factures = (await control(sandbox.url, 'keys', { scopes: ['factures:read'] })).json.key;
		const hook = (events: string[]) =>
			api('POST', '/webhooks', { key: factures, body: { url: 'http://127.0.0.1:9/h', events } });
		assert.equal((await hook(['vente.creee', 'facture.payee'])).status, 201);
		const stock = await hook(['stock.bas']);
		assert.equal(stock.status, 403);
		assert.match(stock.json.error.message, /articles:read/);
		const all = await hook(['*']);
		assert.equal(all.status, 403);
		assert.match(all.json.error.message, /paie:read/);
		assert.equal((await api('GET', '/articles', { key: factures })).status, 403);
	});
});

// ---------- OAuth ----------
const REDIRECT = 'http://127.0.0.1:9/callback';

function pkce() {
	const verifier = randomBytes(32).toString('base64url');
	return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function authorize(params: Record<string, string>): Promise<URL> {
	const qs = new URLSearchParams({
		response_type: 'code',
		client_id: DEMO_OAUTH_CLIENT.clientId,
		redirect_uri: REDIRECT,
		state: 'st-1',
		code_challenge_method: 'S256',
		...params,
	});
	const r = await call(sandbox.url, 'GET', `/oauth/authorize?${qs}`, { key: null });
	assert.equal(r.status, 302, r.text);
	return new URL(r.headers.location as string);
}

async function getCode(scope = 'articles:read factures:read') {
	const { verifier, challenge } = pkce();
	const location = await authorize({ scope, code_challenge: challenge });
	assert.equal(location.origin + location.pathname, REDIRECT);
	assert.equal(location.searchParams.get('state'), 'st-1');
	const code = location.searchParams.get('code');
	assert.ok(code);
	return { code, verifier };
}

const basic = `Basic ${Buffer.from(`${DEMO_OAUTH_CLIENT.clientId}:${DEMO_OAUTH_CLIENT.clientSecret}`).toString('base64')}`;

async function token(
	params: Record<string, string>,
	clientAuth: 'basic' | 'body' = 'basic',
): Promise<Answer> {
	const form = new URLSearchParams(params);
	const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
	if (clientAuth === 'basic') headers.authorization = basic;
	else {
		form.set('client_id', DEMO_OAUTH_CLIENT.clientId);
		form.set('client_secret', DEMO_OAUTH_CLIENT.clientSecret);
	}
	return call(sandbox.url, 'POST', '/oauth/token', { key: null, raw: form.toString(), headers });
}

const exchange = (code: string, verifier: string, clientAuth: 'basic' | 'body' = 'basic') =>
	token(
		{ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
		clientAuth,
	);

describe('OAuth 2.0 with PKCE', () => {
	it('runs the flow: authorize, exchange, call the API with the scopes granted, refresh with rotation', async () => {
		const { code, verifier } = await getCode();
		const t = await exchange(code, verifier);
		assert.equal(t.status, 200, t.text);
		assert.equal(t.json.token_type, 'Bearer');
		assert.equal(t.json.expires_in, 3600);
		assert.equal(t.json.scope, 'articles:read factures:read');
		assert.ok(t.json.access_token && t.json.refresh_token);
		assert.equal(t.headers['cache-control'], 'no-store');

		const ok = await api('GET', '/articles', { key: t.json.access_token });
		assert.equal(ok.status, 200);
		const denied = await api('GET', '/clients', { key: t.json.access_token });
		assert.equal(denied.status, 403);
		assert.match(denied.json.error.message, /clients:read/);

		const r1 = await token(
			{ grant_type: 'refresh_token', refresh_token: t.json.refresh_token },
			'body',
		);
		assert.equal(r1.status, 200, r1.text);
		assert.notEqual(r1.json.access_token, t.json.access_token);
		assert.notEqual(r1.json.refresh_token, t.json.refresh_token);
		assert.equal(r1.json.scope, 'articles:read factures:read');
		assert.equal((await api('GET', '/factures', { key: r1.json.access_token })).status, 200);

		const reused = await token({
			grant_type: 'refresh_token',
			refresh_token: t.json.refresh_token,
		});
		assert.equal(reused.status, 400);
		assert.equal(reused.json.error, 'invalid_grant');
		assert.equal(typeof reused.json.error_description, 'string');
		const r2 = await token({ grant_type: 'refresh_token', refresh_token: r1.json.refresh_token });
		assert.equal(r2.status, 200, 'the rotated refresh token still works');
	});

	it('counts the rate limit per grant, across refreshed tokens', async () => {
		await control(sandbox.url, 'config', { rateLimit: { limit: 10, windowSeconds: 60 } });
		const { code, verifier } = await getCode();
		const t = (await exchange(code, verifier)).json;
		const a = await api('GET', '/articles', { key: t.access_token });
		const fresh = (await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token }))
			.json;
		const b = await api('GET', '/articles', { key: fresh.access_token });
		assert.deepEqual(
			[a.headers['ratelimit-remaining'], b.headers['ratelimit-remaining']],
			['9', '8'],
		);
	});

	it('refuses a reused code (and revokes what it gave), a wrong verifier, a wrong redirect_uri or client', async () => {
		const { code, verifier } = await getCode();
		const first = await exchange(code, verifier, 'body');
		assert.equal(first.status, 200);
		const again = await exchange(code, verifier);
		assert.equal(again.status, 400);
		assert.equal(again.json.error, 'invalid_grant');
		assert.equal(
			errorCode(await api('GET', '/articles', { key: first.json.access_token })),
			'invalid_api_key',
		);

		const c2 = await getCode();
		const wrong = await exchange(c2.code, pkce().verifier);
		assert.equal(wrong.json.error, 'invalid_grant');
		assert.equal(
			(await exchange(c2.code, c2.verifier)).json.error,
			'invalid_grant',
			'a code is single use even after a failure',
		);

		const c3 = await getCode();
		const otherRedirect = await token({
			grant_type: 'authorization_code',
			code: c3.code,
			redirect_uri: 'http://127.0.0.1:9/other',
			code_verifier: c3.verifier,
		});
		assert.equal(otherRedirect.json.error, 'invalid_grant');

		const c4 = await getCode();
		const badClient = await call(sandbox.url, 'POST', '/oauth/token', {
			key: null,
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				authorization: `Basic ${Buffer.from('erp_demo_client:nope').toString('base64')}`,
			},
			raw: new URLSearchParams({
				grant_type: 'authorization_code',
				code: c4.code,
				redirect_uri: REDIRECT,
				code_verifier: c4.verifier,
			}).toString(),
		});
		assert.equal(badClient.status, 401);
		assert.equal(badClient.json.error, 'invalid_client');
		const json = await call(sandbox.url, 'POST', '/oauth/token', {
			key: null,
			body: {
				grant_type: 'authorization_code',
				code: c4.code,
				redirect_uri: REDIRECT,
				code_verifier: c4.verifier,
				client_id: DEMO_OAUTH_CLIENT.clientId,
				client_secret: DEMO_OAUTH_CLIENT.clientSecret,
			},
		});
		assert.equal(json.status, 200, 'JSON bodies are accepted too');
		assert.equal((await token({ grant_type: 'password' })).json.error, 'unsupported_grant_type');
	});

	it('redirects with access_denied when deny=1, and with invalid_request without an S256 challenge', async () => {
		const denied = await authorize({ code_challenge: pkce().challenge, deny: '1' });
		assert.equal(denied.searchParams.get('error'), 'access_denied');
		assert.equal(denied.searchParams.get('state'), 'st-1');
		assert.equal(denied.searchParams.get('code'), null);
		const plain = await authorize({
			code_challenge: pkce().challenge,
			code_challenge_method: 'plain',
		});
		assert.equal(plain.searchParams.get('error'), 'invalid_request');
		const noScope = await authorize({ code_challenge: pkce().challenge, scope: 'admin:all' });
		assert.equal(noScope.searchParams.get('error'), 'invalid_scope');
		const unknownClient = await call(
			sandbox.url,
			'GET',
			`/oauth/authorize?client_id=x&redirect_uri=${encodeURIComponent(REDIRECT)}`,
			{ key: null },
		);
		assert.equal(unknownClient.status, 400);
	});

	it('expires access tokens (401 token_expired), codes and refresh tokens with shortened lifetimes', async () => {
		await control(sandbox.url, 'config', {
			// 2 s: enough for the two codes, the exchange and the first call on a busy machine.
			tokenLifetimes: { accessTokenSeconds: 2, codeSeconds: 2, refreshTokenSeconds: 2 },
		});
		const a = await getCode();
		const b = await getCode();
		const t = (await exchange(a.code, a.verifier)).json;
		assert.equal((await api('GET', '/articles', { key: t.access_token })).status, 200);
		await sleep(2100);
		const expired = await api('GET', '/articles', { key: t.access_token });
		assert.equal(expired.status, 401);
		assert.equal(errorCode(expired), 'token_expired');
		assert.equal((await exchange(b.code, b.verifier)).json.error, 'invalid_grant');
		assert.equal(
			(await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token })).json.error,
			'invalid_grant',
		);
	});
});
