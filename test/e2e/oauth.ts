/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * OAuth2 for the e2e files (test/e2e/apiRequest.test.ts, test/compat/): the token n8n's
 * "Connect my account" obtains, from the sandbox's real Authorization Code + PKCE flow.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';

import { DEMO_OAUTH_CLIENT } from '../../sandbox';
import type { Workflow } from '../../scripts/examples';
import type { CredentialImport, N8nConfig } from '../../scripts/n8n-instance';
import { manualWorkflow, type ApiJson, type Sandbox } from './helpers';

/** POST /oauth/token as the demo client (HTTP Basic), with `params` as the form. */
export async function tokenRequest(
	sandbox: Sandbox,
	params: Record<string, string>,
): Promise<Response> {
	const basic = Buffer.from(
		`${DEMO_OAUTH_CLIENT.clientId}:${DEMO_OAUTH_CLIENT.clientSecret}`,
	).toString('base64');
	return await fetch(`${sandbox.url}/oauth/token`, {
		method: 'POST',
		headers: {
			authorization: `Basic ${basic}`,
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: new URLSearchParams(params).toString(),
	});
}

/**
 * What n8n's "Connect my account" does for a PKCE credential: authorize with an S256 challenge
 * (the sandbox approves at once and redirects with a code), then exchange the code with the
 * verifier. Returns the token answer, which n8n stores as the credential's `oauthTokenData`.
 */
export async function pkceToken(
	sandbox: Sandbox,
	scope: string,
	redirectUri: string,
): Promise<ApiJson> {
	const verifier = randomBytes(32).toString('base64url');
	const challenge = createHash('sha256').update(verifier).digest('base64url');
	const state = randomBytes(8).toString('hex');
	const authorize = new URL(`${sandbox.url}/oauth/authorize`);
	for (const [key, value] of Object.entries({
		response_type: 'code',
		client_id: DEMO_OAUTH_CLIENT.clientId,
		redirect_uri: redirectUri,
		scope,
		state,
		code_challenge: challenge,
		code_challenge_method: 'S256',
	}))
		authorize.searchParams.set(key, value);
	const redirect = await fetch(authorize, { redirect: 'manual' });
	assert.equal(redirect.status, 302);
	const location = new URL(redirect.headers.get('location') ?? '');
	assert.equal(location.searchParams.get('state'), state);
	const code = location.searchParams.get('code');
	assert.ok(code, `no code in ${location.toString()}`);

	const response = await tokenRequest(sandbox, {
		grant_type: 'authorization_code',
		code,
		redirect_uri: redirectUri,
		code_verifier: verifier,
	});
	const token = (await response.json()) as ApiJson;
	assert.equal(response.status, 200, JSON.stringify(token));
	assert.equal(token.scope, scope);
	return token;
}

/** The OAuth2 credential the workflows use (imported with its token data). */
export const PAYROLL_CREDENTIAL = { id: 'ErpOAuthPayroll1', name: 'ERP OAuth2 (paie:read)' };
/** Manual Trigger, then ERP › API Request › GET `route` with the OAuth2 credential. */
export function apiRequestWorkflow(
	id: string,
	name: string,
	parameters: Record<string, unknown>,
): Workflow {
	return manualWorkflow(id, name, apiRequestNode(parameters));
}

/** ERP › API Request › GET with the OAuth2 credential (`parameters`: path, query, ...). */
export function apiRequestNode(parameters: Record<string, unknown>) {
	return {
		name: 'ERP API Request',
		type: 'n8n-nodes-erp.erp',
		credentials: { erpOAuth2Api: PAYROLL_CREDENTIAL },
		parameters: {
			authentication: 'oAuth2',
			resource: 'apiRequest',
			operation: 'send',
			method: 'GET',
			...parameters,
		},
	};
}

/**
 * PAYROLL_CREDENTIAL connected: its token from the sandbox's real PKCE flow, with the scope
 * paie:read only, as `n8n import:credentials` takes it (n8n keeps the token answer in the
 * credential's data as `oauthTokenData`; the import encrypts a plain `data` object as it is).
 */
export async function payrollCredential(
	config: N8nConfig,
	sandbox: Sandbox,
): Promise<CredentialImport> {
	const redirectUri = `http://127.0.0.1:${config.port}/rest/oauth2-credential/callback`;
	return {
		...PAYROLL_CREDENTIAL,
		type: 'erpOAuth2Api',
		data: {
			grantType: 'pkce',
			environment: 'sandbox',
			baseUrl: sandbox.baseUrl,
			clientId: DEMO_OAUTH_CLIENT.clientId,
			clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
			scopes: ['paie:read'],
			oauthTokenData: await pkceToken(sandbox, 'paie:read', redirectUri),
		},
	};
}
