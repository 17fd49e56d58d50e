/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * connectOAuth2: what n8n's editor does when a user clicks "Connect my account" on an OAuth2
 * credential (packages/cli `OauthService.generateAOauth2AuthUri` + `OAuth2CredentialController
 * .handleCallback`): the authorization URL is built with @n8n/client-oauth2 (with an S256 PKCE
 * challenge for grant type `pkce`), the browser's visit is one GET whose 302 is followed by
 * hand, and the code is exchanged at the token URL. The token lands in `oauthTokenData`.
 */
import { ClientOAuth2 } from '@n8n/client-oauth2';
import type { ClientOAuth2Options } from '@n8n/client-oauth2';
import { createHash, randomBytes } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { UserError, jsonParse } from 'n8n-workflow';

import { createAdditionalData, DEFAULT_WORKFLOW_ID } from './additional-data';
import { credentialRef } from './credentials';
import type { TestCredentials } from './credentials';

function clientOptions(data: ICredentialDataDecryptedObject, redirectUri: string): ClientOAuth2Options {
	const scope = (data.scope as string | undefined) ?? 'openid';
	const options: ClientOAuth2Options = {
		clientId: data.clientId as string,
		clientSecret: (data.clientSecret as string | undefined) ?? '',
		accessTokenUri: (data.accessTokenUrl as string | undefined) ?? '',
		authorizationUri: (data.authUrl as string | undefined) ?? '',
		authentication: (data.authentication as 'header' | 'body' | undefined) ?? 'header',
		redirectUri,
		scopes: String(scope).split(','),
		scopesSeparator: typeof scope === 'string' && scope.includes(',') ? ',' : ' ',
		ignoreSSLIssues: (data.ignoreSSLIssues as boolean | undefined) ?? false,
	};
	if (typeof data.additionalBodyProperties === 'string' && data.additionalBodyProperties) {
		options.body = jsonParse<Record<string, string>>(data.additionalBodyProperties);
	}
	return options;
}

/**
 * Obtains a token through the Authorization Code flow (with PKCE when the credential's grant
 * type is `pkce`) and stores it in the credential's `oauthTokenData`, as n8n's editor does.
 * The authorization endpoint must approve at once with a 302 (the sandbox does).
 * This is the editor's save, not an execution's: it is not recorded in `creds.updates`.
 */
export async function connectOAuth2(creds: TestCredentials, type = 'erpOAuth2Api'): Promise<void> {
	const additionalData = createAdditionalData({ credentials: creds, workflowId: DEFAULT_WORKFLOW_ID });
	const ref = credentialRef(type);
	const stored = await creds.getDecrypted(additionalData, ref, type, 'internal', undefined, true);
	const data = await creds.getDecrypted(additionalData, ref, type, 'internal');
	if (data.grantType !== 'pkce' && data.grantType !== 'authorizationCode') {
		throw new UserError(`connectOAuth2 needs grant type pkce or authorizationCode, not ${String(data.grantType)}`);
	}

	const redirectUri = `${additionalData.restApiUrl}/oauth2-credential/callback`;
	const state = randomBytes(24).toString('base64');
	const options: ClientOAuth2Options = { ...clientOptions(data, redirectUri), state };
	if (typeof data.authQueryParameters === 'string' && data.authQueryParameters) {
		options.query = parseQuery(data.authQueryParameters);
	}
	let codeVerifier: string | undefined;
	if (data.grantType === 'pkce') {
		codeVerifier = randomBytes(32).toString('base64url');
		const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
		options.query = { ...options.query, code_challenge: codeChallenge, code_challenge_method: 'S256' };
	}
	const authUri = new ClientOAuth2(options).code.getUri();

	// The user's browser: the authorization server approves and redirects to n8n's callback.
	const answer = await fetch(authUri, { redirect: 'manual' });
	const location = answer.headers.get('location');
	await answer.body?.cancel();
	if (answer.status < 300 || answer.status >= 400 || !location) {
		throw new UserError(`The authorization endpoint answered ${answer.status} without a redirect`);
	}

	// n8n's callback: exchange the code (the client verifies `state` and reports `error=`).
	const callbackOptions = { ...clientOptions(data, redirectUri), state };
	let tokenOptions: Partial<ClientOAuth2Options> = {};
	if (codeVerifier) {
		tokenOptions = { body: { code_verifier: codeVerifier } };
	} else if (callbackOptions.authentication === 'body') {
		tokenOptions = {
			body: {
				...(callbackOptions.body ?? {}),
				client_id: callbackOptions.clientId,
				client_secret: callbackOptions.clientSecret,
			},
		};
		delete callbackOptions.clientSecret;
	}
	const token = await new ClientOAuth2(callbackOptions).code.getToken(location, tokenOptions);

	// Only overwrite what the server supplied (some send a refresh token only the first time).
	const previous = typeof stored.oauthTokenData === 'object' ? stored.oauthTokenData : {};
	creds.set(type, { ...stored, oauthTokenData: { ...previous, ...token.data } });
}
