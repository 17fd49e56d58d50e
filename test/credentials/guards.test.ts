/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/** The guards as pure functions (nodes/shared/guards.ts): the cases the credential tests do not reach. */
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import {
	apiKeyProblem,
	baseUrlProblem,
	credentialProblem,
	normalizeBaseUrl,
	requestTarget,
	requestTargetProblem,
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

test('request target: url, then the legacy uri, against baseURL, as n8n resolves them', () => {
	const base = 'https://erp.example.com/v1';
	const allowed: Array<Record<string, unknown>> = [
		{ url: 'https://erp.example.com/v1/articles' },
		{ baseURL: 'https://erp.example.com/v1', url: '/articles' },
		{ uri: 'https://erp.example.com/v1/articles?limit=1' },
		{ uri: new URL('https://erp.example.com/v1/clients') },
		{ baseURL: 'https://erp.example.com/v1' },
	];
	for (const request of allowed) {
		assert.equal(requestTargetProblem(base, request), undefined, JSON.stringify(request));
	}
	const foreign: Array<Record<string, unknown>> = [
		{ uri: 'http://127.0.0.1:4099/steal' },
		{ uri: new URL('https://evil.example.net/v1/articles') },
		{ url: 'https://erp.example.com.evil.net/v1/articles' },
		{ baseURL: 'https://erp.example.com/v1', url: '//evil.example.net/x' },
		{ baseURL: 'https://erp.example.com/v1', url: 'https://evil.example.net/x' },
		{ url: 'http://erp.example.com/v1/articles' },
		{ uri: 'https://erp.example.com:8443/v1/articles' },
		// n8n's legacy client takes `url` first: a harmless `url` cannot hide a foreign `uri` the other way.
		{ url: 'https://evil.example.net/x', uri: 'https://erp.example.com/v1/articles' },
	];
	for (const request of foreign) {
		assert.match(
			requestTargetProblem(base, request) ?? '',
			/only sends its API key to its own Base URL \(https:\/\/erp\.example\.com\); the request goes to /,
			JSON.stringify(request),
		);
	}
	for (const request of [
		{},
		{ url: '/articles' },
		{ uri: 'articles' },
		{ uri: '' },
		{ url: 'http://' },
	]) {
		assert.match(
			requestTargetProblem(base, request) ?? '',
			/the address of this request cannot be determined/,
			JSON.stringify(request),
		);
	}
	assert.equal(requestTarget({ uri: 'https://a.example/v1/x' })?.href, 'https://a.example/v1/x');
	assert.equal(requestTarget({}), undefined);
});
