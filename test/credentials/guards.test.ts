/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/** The guards as pure functions (nodes/shared/guards.ts): the cases the credential tests do not reach. */
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import {
	apiKeyProblem,
	baseUrlProblem,
	credentialProblem,
	normalizeBaseUrl,
} from '../../nodes/shared/guards';

test('base URL: https or loopback http, ending in /v1, nothing else', () => {
	for (const ok of [
		'https://erp.example.com/v1',
		'https://erp.example.com/api/v1/',
		'http://localhost:4010/v1',
		'http://127.0.0.1/v1',
		'http://[::1]:8080/v1',
	]) {
		assert.equal(baseUrlProblem(ok), undefined, ok);
	}
	const problems: Array<[unknown, RegExp]> = [
		[undefined, /no Base URL/],
		['   ', /no Base URL/],
		['erp.example.com/v1', /not a valid address/],
		['http://erp.example.com/v1', /must use https:\/\/.*got http:\/\/erp\.example\.com/],
		['http://localhost.evil.com/v1', /must use https/],
		['http://127.0.0.2/v1', /must use https/],
		['ftp://localhost/v1', /must use https/],
		['https://erp.example.com/v2', /must end in \/v1/],
		['https://erp.example.com/v1?x=1', /query string/],
	];
	for (const [url, message] of problems)
		assert.match(baseUrlProblem(url) ?? '', message, String(url));
	assert.equal(normalizeBaseUrl(' https://erp.example.com/v1// '), 'https://erp.example.com/v1');
});

test('API key versus environment', () => {
	assert.equal(apiKeyProblem('sk_live_1', 'production'), undefined);
	assert.equal(apiKeyProblem('sk_test_1', 'sandbox'), undefined);
	assert.match(
		apiKeyProblem('sk_test_1', 'production') ?? '',
		/^This API key is a sandbox key \(sk_test_\) but the credential's Environment is Production/,
	);
	assert.match(
		apiKeyProblem('sk_live_1', 'sandbox') ?? '',
		/^This API key is a production key \(sk_live_\) but the credential's Environment is Sandbox/,
	);
	assert.match(
		apiKeyProblem('sk_test_1', undefined) ?? '',
		/Environment is Production/,
		'a missing environment is the default, Production',
	);
	assert.match(apiKeyProblem('pk_live_1', 'production') ?? '', /not an ERP API key/);
	assert.match(apiKeyProblem('', 'production') ?? '', /no API key/);
});

test('OAuth2 credentials have no key to check; the environment must be known', () => {
	assert.equal(
		credentialProblem({ environment: 'sandbox', baseUrl: 'https://s.example.com/v1' }, 'oAuth2'),
		undefined,
	);
	assert.match(
		credentialProblem({ environment: 'sandbox', baseUrl: 'https://s.example.com/v1' }, 'apiKey') ??
			'',
		/no API key/,
	);
	assert.match(
		credentialProblem({ environment: 'staging', baseUrl: 'https://s.example.com/v1' }, 'oAuth2') ??
			'',
		/Production or Sandbox/,
	);
});
