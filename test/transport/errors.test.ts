/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Pure parts of the transport: reading error bodies of any shape, scrubbing secrets, the scope
 * table, the continueOnFail JSON, and the idempotency key.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from '@jest/globals';

import { NodeOperationError } from 'n8n-workflow';

import {
	erpErrorToJson,
	readApiError,
	redactSecrets,
	secretsOf,
} from '../../nodes/shared/transport/apiError';
import { httpStatusError } from '../../nodes/shared/transport/errors';
import { requiredScopes } from '../../nodes/shared/transport/settings';
import {
	canonicalJson,
	deriveIdempotencyKey,
	resolveIdempotencyKey,
} from '../../nodes/shared/transport/attempt';
import { erpNode } from './helpers';

const node = erpNode;

/** The error for an API answer with this status and body, to an API-key GET /articles unless `request` says otherwise. */
const statusError = (
	status: number,
	body: unknown,
	request: Partial<Parameters<typeof httpStatusError>[3]> = {},
	extra?: string,
) =>
	httpStatusError(
		node,
		status,
		body,
		{ method: 'GET', path: '/articles', authentication: 'apiKey', ...request },
		extra,
	);

describe('error bodies', () => {
	test('the contract body, a bare message, an OAuth error string, an errors array, and non-JSON', () => {
		assert.deepEqual(
			readApiError({
				error: {
					code: 'validation_failed',
					message: 'Invalid',
					details: [{ field: 'tva', message: 'Expected an integer' }],
				},
			}),
			{
				code: 'validation_failed',
				message: 'Invalid',
				details: [{ field: 'tva', message: 'Expected an integer' }],
			},
		);
		assert.deepEqual(readApiError({ message: 'Something broke' }), {
			code: undefined,
			message: 'Something broke',
			details: undefined,
		});
		assert.deepEqual(
			readApiError({ error: 'invalid_grant', error_description: 'Refresh token reused' }),
			{
				code: 'invalid_grant',
				message: 'Refresh token reused',
				details: undefined,
			},
		);
		assert.deepEqual(readApiError({ errors: [{ field: 'email', message: 'Taken' }, 'Second'] }), {
			code: undefined,
			message: 'Taken',
			details: [{ field: 'email', message: 'Taken' }, { message: 'Second' }],
		});
		assert.deepEqual(readApiError('<html><body><h1>502 Bad Gateway</h1></body></html>'), {
			message: '502 Bad Gateway',
		});
		assert.deepEqual(readApiError(undefined), {});
	});

	test('secrets in server text are scrubbed', () => {
		const text = redactSecrets(
			'key sk_live_ABCdef123 and sk_test_x-y_z, Bearer eyJhbGciOi.abc.def, secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
		);
		assert.equal(text, 'key sk_live_*** and sk_test_***, Bearer ***, secret whsec_***');
		const error = statusError(401, {
			error: { code: 'invalid_api_key', message: 'Key sk_test_leaky9 is unknown' },
		});
		assert.ok(!JSON.stringify(erpErrorToJson(error)).includes('leaky9'));
	});

	test("the credential's own secrets are scrubbed wherever the API echoes them", () => {
		const access = `access-${randomUUID()}`;
		const refresh = `refresh-${randomUUID()}`;
		const client = `client-${randomUUID()}`;
		const secrets = secretsOf({
			clientSecret: client,
			oauthTokenData: { access_token: access, refresh_token: refresh },
			webhookSecret: '',
		});
		assert.deepEqual(new Set(secrets), new Set([access, refresh, client]));
		const body = {
			error: {
				code: 'invalid_request',
				message: `Token ${access} rejected`,
				details: [{ field: 'auth', message: `seen ${refresh}` }],
			},
		};
		const error = statusError(400, body, { authentication: 'oAuth2', secrets });
		const shown = JSON.stringify({
			json: erpErrorToJson(error),
			message: error.message,
			description: error.description,
		});
		assert.ok(!shown.includes(access) && !shown.includes(refresh), shown);
		assert.equal(error.message, 'The ERP API rejected the request as invalid: auth: seen ***');
		assert.match(String(error.description), /Token \*\*\* rejected/);
	});

	test('a non-JSON 502 still becomes a readable error with its status', () => {
		const error = statusError(502, '<html>Bad gateway</html>', { path: '/clients' });
		assert.deepEqual(erpErrorToJson(error), {
			message: 'The ERP API failed with a server error (HTTP 502)',
			code: null,
			httpCode: 502,
			description: 'Bad gateway.',
		});
	});

	test('a 429 left after the retries says so, with the API code', () => {
		const error = statusError(
			429,
			{ error: { code: 'rate_limited', message: 'Rate limit of 100 requests per 60 s exceeded' } },
			{},
			'Gave up after 6 attempts.',
		);
		const json = erpErrorToJson(error);
		assert.equal(json.message, 'The ERP API rate limit is still exceeded after several retries');
		assert.equal(json.code, 'rate_limited');
		assert.equal(json.httpCode, 429);
		assert.match(String(json.description), /Gave up after 6 attempts\.$/);
	});

	test('erpErrorToJson looks through a wrapping NodeOperationError', () => {
		const apiError = statusError(
			409,
			{ error: { code: 'insufficient_balance', message: 'Too much' } },
			{ method: 'POST', path: '/reglements' },
		);
		const wrapped = new NodeOperationError(node, apiError, { itemIndex: 2 });
		assert.deepEqual(erpErrorToJson(wrapped), erpErrorToJson(apiError));
	});

	test('erpErrorToJson works on errors that did not come from the API', () => {
		assert.deepEqual(erpErrorToJson(new NodeOperationError(node, 'Quantity must be an integer')), {
			message: 'Quantity must be an integer',
			code: null,
			httpCode: null,
		});
	});

	test('the scope table, webhooks included', () => {
		assert.deepEqual(requiredScopes('GET', '/articles/art_1'), ['articles:read']);
		assert.deepEqual(requiredScopes('GET', '/stock/mouvements'), ['articles:read']);
		assert.deepEqual(requiredScopes('PATCH', '/clients/cli_1'), ['clients:write']);
		assert.deepEqual(requiredScopes('POST', '/reglements'), ['factures:write']);
		assert.deepEqual(requiredScopes('GET', '/comptabilite/grand-livre'), ['compta:read']);
		assert.deepEqual(
			requiredScopes('POST', '/webhooks', {
				events: ['stock.bas', 'paie.validee', 'vente.creee', 'facture.payee'],
			}),
			['articles:read', 'paie:read', 'factures:read'],
		);
		assert.equal(requiredScopes('POST', '/webhooks', { events: ['*'] }).length, 4);
		assert.deepEqual(requiredScopes('GET', '/unknown'), []);
	});
});

describe('idempotency key', () => {
	const base = { workflowId: 'wf1', nodeName: 'Create Invoice', method: 'POST', path: '/factures' };

	test('canonical JSON sorts keys at every level and drops undefined', () => {
		assert.equal(
			canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } }),
			'{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
		);
	});

	test('derived from workflow, node, method, path and body, not from key order', () => {
		const key = deriveIdempotencyKey({
			...base,
			body: { client_id: 'cli_1', lignes: [{ article_id: 'art_1', quantite: 2 }] },
		});
		assert.match(key, /^n8n-[0-9a-f]{64}$/);
		assert.equal(
			key,
			deriveIdempotencyKey({
				...base,
				body: { lignes: [{ quantite: 2, article_id: 'art_1' }], client_id: 'cli_1' },
			}),
		);
		for (const changed of [
			{ ...base, workflowId: 'wf2' },
			{ ...base, nodeName: 'Other' },
			{ ...base, path: '/reglements' },
		]) {
			assert.notEqual(
				key,
				deriveIdempotencyKey({
					...changed,
					body: { client_id: 'cli_1', lignes: [{ article_id: 'art_1', quantite: 2 }] },
				}),
			);
		}
		assert.notEqual(
			key,
			deriveIdempotencyKey({
				...base,
				body: { client_id: 'cli_1', lignes: [{ article_id: 'art_1', quantite: 3 }] },
			}),
		);
	});

	test("the request's choice wins, then the setting", () => {
		const derive = () => 'derived';
		assert.equal(resolveIdempotencyKey(undefined, undefined, derive), 'derived');
		assert.equal(resolveIdempotencyKey(undefined, 'auto', derive), 'derived');
		assert.equal(resolveIdempotencyKey(undefined, 'off', derive), undefined);
		assert.equal(resolveIdempotencyKey(undefined, ' order-42 ', derive), 'order-42');
		assert.equal(resolveIdempotencyKey('mine', 'off', derive), 'mine');
		assert.equal(resolveIdempotencyKey(false, 'order-42', derive), undefined);
	});
});
