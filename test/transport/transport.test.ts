/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The transport through real workflows (n8n-core's WorkflowExecute) against the sandbox:
 * guards, error mapping, rate limits, retries, idempotency. Assertions read the sandbox's
 * /_sandbox/stats and state, not only the node's output.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEMO_KEYS } from '../../sandbox';
import { TestCredentials } from '../harness';
import { startRecordingServer } from '../harness/fixtures';
import { useSandbox } from '../harness/sandbox';
import { api, apiKeyCredentials, callPastWindow, control, newKey, runCall, stats } from './helpers';

const sb = useSandbox({ reset: 'afterEach' });

const newArticle = (reference: string): IDataObject => ({
	reference,
	designation: `Test ${reference}`,
	prix_ht: 1250,
	tva: 2000,
});

describe('guards: refused before any request leaves', () => {
	test('each refusal names the problem, never shows the key, and the sandbox sees nothing', async () => {
		const cases: Array<{
			credentials: TestCredentials;
			parameters?: IDataObject;
			message: RegExp;
		}> = [
			{
				credentials: apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full, 'production'),
				message: /sandbox key \(sk_test_\) but the credential's Environment is Production/,
			},
			{
				credentials: apiKeyCredentials(sb.baseUrl, 'sk_live_0123456789abcdef', 'sandbox'),
				message: /production key \(sk_live_\) but the credential's Environment is Sandbox/,
			},
			{
				credentials: apiKeyCredentials(sb.baseUrl, 'demo_full_0123456789', 'sandbox'),
				message:
					/not an ERP API key: keys start with sk_live_ \(production\) or sk_test_ \(sandbox\)/,
			},
			{
				credentials: apiKeyCredentials('http://erp.example.com/v1', DEMO_KEYS.full, 'sandbox'),
				message: /must use https:\/\//,
			},
			{
				credentials: apiKeyCredentials(sb.url, DEMO_KEYS.full, 'sandbox'),
				message: /must end in \/v1/,
			},
			{
				credentials: new TestCredentials({
					erpOAuth2Api: {
						environment: 'production',
						baseUrl: 'http://erp.example.com/v1',
						clientId: 'x',
						clientSecret: 'y',
						oauthTokenData: { access_token: 'at_secret_value', token_type: 'Bearer' },
					},
				}),
				parameters: { authentication: 'oAuth2' },
				message: /must use https:\/\//,
			},
		];
		for (const { credentials, parameters, message } of cases) {
			const result = await runCall(credentials, { path: '/articles', ...parameters });
			assert.equal(result.success, false);
			assert.match(result.error?.message ?? '', message);
			const shown = JSON.stringify({
				message: result.error?.message,
				description: (result.error as IDataObject | undefined)?.description,
			});
			assert.ok(
				!/sk_(test|live)_[a-z0-9]|demo_full|at_secret_value/.test(shown),
				`no secret in ${shown}`,
			);
		}
		const seen = await stats(sb.url);
		assert.equal(seen.requests, 0);
	});

	test('invalid request options are refused, naming the option, before any request', async () => {
		const credentials = apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full);
		const cases: Array<[IDataObject, RegExp]> = [
			[
				{ idempotency: 'sometimes' },
				/Invalid value for "Request Options › Idempotency Key": expected Automatic/,
			],
			[
				{ idempotency: 'custom' },
				/Invalid value for "Request Options › Custom Idempotency Key": a key is required/,
			],
			[
				{ idempotency: 'custom', customIdempotencyKey: { not: 'text' } },
				/"Request Options › Custom Idempotency Key": expected text/,
			],
			[
				{ idempotency: 'custom', customIdempotencyKey: 'x'.repeat(256) },
				/at most 255 printable ASCII/,
			],
			[
				{ idempotency: 'custom', customIdempotencyKey: 'commande\u00e9' },
				/at most 255 printable ASCII/,
			],
			[
				{ maxWaitSeconds: 'twelve' },
				/"Request Options › Max Rate-Limit Wait \(Seconds\)": expected a number of seconds from 0 to 3600/,
			],
			[{ maxWaitSeconds: -1 }, /Max Rate-Limit Wait/],
		];
		for (const [requestOptions, message] of cases) {
			const result = await runCall(credentials, {
				method: 'POST',
				path: '/articles',
				body: '{}',
				requestOptions: requestOptions as INodeParameters,
			});
			assert.equal(result.success, false);
			assert.equal(result.error?.name, 'NodeOperationError');
			assert.match(result.error?.message ?? '', message);
		}
		assert.equal((await stats(sb.url)).requests, 0);
	});

	test('a good credential gets through with JSON in and out', async () => {
		const result = await runCall(apiKeyCredentials(`${sb.baseUrl}/`, DEMO_KEYS.full), {
			path: '/articles',
			qs: '{"limit": 2}',
		});
		assert.equal(result.success, true, result.error?.message);
		const [page] = result.output('Call');
		assert.equal((page.data as IDataObject[]).length, 2);
		assert.equal((await stats(sb.url)).byPath['GET /v1/articles'], 1);
	});
});

describe('error mapping', () => {
	async function failure(key: string, parameters: INodeParameters): Promise<IDataObject> {
		const result = await runCall(apiKeyCredentials(sb.baseUrl, key), parameters, {
			continueOnFail: true,
		});
		assert.equal(result.success, true, 'continueOnFail keeps the run going');
		const [item] = result.output('Call');
		assert.ok(!JSON.stringify(item).includes(key), 'the key never appears');
		return item;
	}

	test('401: invalid and revoked keys', async () => {
		const invalid = await failure('sk_test_not_a_real_key', { path: '/articles' });
		assert.equal(invalid.httpCode, 401);
		assert.equal(invalid.code, 'invalid_api_key');
		assert.match(
			String(invalid.message),
			/refused the credential: the API key is missing, invalid, expired or revoked/,
		);

		const key = await newKey(sb.url, ['articles:read']);
		await control(sb.url, 'keys/revoke', { key });
		const revoked = await failure(key, { path: '/articles' });
		assert.equal(revoked.httpCode, 401);
		assert.equal(revoked.code, 'api_key_revoked');
		assert.equal((await stats(sb.url)).byStatus['401'], 2, 'a 401 is not retried');
	});

	test('403 names the scope needed', async () => {
		const item = await failure(DEMO_KEYS.readonly, {
			method: 'POST',
			path: '/articles',
			body: JSON.stringify(newArticle('T-403')),
		});
		assert.equal(item.httpCode, 403);
		assert.equal(item.code, 'insufficient_scope');
		assert.match(String(item.message), /needs the scope articles:write/);
	});

	test('404 names the resource', async () => {
		const item = await failure(DEMO_KEYS.full, {
			path: '/articles/art_missing',
			resource: 'Article art_missing',
		});
		assert.equal(item.httpCode, 404);
		assert.equal(item.message, 'Article art_missing was not found');
	});

	test('409 carries the business rule and the API message', async () => {
		const first = await api(sb.baseUrl, DEMO_KEYS.full, 'GET', '/articles?limit=1');
		const reference = (first.json.data as IDataObject[])[0].reference as string;
		const item = await failure(DEMO_KEYS.full, {
			method: 'POST',
			path: '/articles',
			body: JSON.stringify(newArticle(reference)),
		});
		assert.equal(item.httpCode, 409);
		assert.equal(item.code, 'duplicate_reference');
		assert.match(
			String(item.message),
			new RegExp(`business rule duplicate_reference.*${reference} already exists`),
		);
	});

	test('400 and 422 list the field details', async () => {
		const invalid = await failure(DEMO_KEYS.full, {
			method: 'POST',
			path: '/articles',
			body: '{"reference": "X"}',
		});
		assert.equal(invalid.httpCode, 422);
		const details = invalid.details as IDataObject[];
		assert.ok(
			details.some((d) => d.field === 'designation'),
			JSON.stringify(details),
		);
		assert.match(String(invalid.message), /rejected the data: .*designation/);

		const badQuery = await failure(DEMO_KEYS.full, { path: '/articles', qs: '{"limit": 1000}' });
		assert.equal(badQuery.httpCode, 400);
		assert.match(String(badQuery.message), /rejected the request as invalid/);
		assert.match(JSON.stringify(badQuery), /limit/);
	});

	test('a 5xx on POST is reported and not resent', async () => {
		await control(sb.url, 'faults', {
			faults: [{ kind: 'status', status: 500, count: 1, methods: ['POST'] }],
		});
		const item = await failure(DEMO_KEYS.full, {
			method: 'POST',
			path: '/articles',
			body: JSON.stringify(newArticle('T-500')),
		});
		assert.equal(item.httpCode, 500);
		assert.match(String(item.message), /server error \(HTTP 500\)/);
		assert.match(String(item.description), /not resent automatically/);
		assert.equal((await stats(sb.url)).byPath['POST /v1/articles'], 1);
	});
});

describe('rate limits', () => {
	test('a 429 with Retry-After is waited out, then the request succeeds', async () => {
		const key = await newKey(sb.url, ['articles:read']);
		await control(sb.url, 'config', { rateLimit: { limit: 2, windowSeconds: 1 } });
		// Another client uses up this key's window: our first request meets a real 429.
		await api(sb.baseUrl, key, 'GET', '/articles?limit=1');
		await api(sb.baseUrl, key, 'GET', '/articles?limit=1');
		const result = await runCall(apiKeyCredentials(sb.baseUrl, key), {
			path: '/articles',
			qs: '{"limit": 1}',
		});
		assert.equal(result.success, true, result.error?.message);
		// The sandbox's view, whatever the machine's speed: a retry sent before the window reset
		// would have met a second 429; one 429 and a 200 after it mean the window was waited out.
		const seen = await stats(sb.url);
		assert.equal(seen.byStatus['429'], 1);
		assert.equal(seen.byStatus['200'], 3);
	});

	test('a wait beyond Max Rate-Limit Wait fails at once with a clear error', async () => {
		const { key, result } = await callPastWindow(sb);
		assert.equal(result.success, false);
		assert.match(
			result.error?.message ?? '',
			// 30 s as the ERP said it, or 31 s where the answer came a moment after the second began
			// (the wait is rounded up, never down).
			/asks to wait 3[01] s before retrying, longer than the Max Rate-Limit Wait of 5 s/,
		);
		assert.equal((await stats(sb.url)).byStatus['429'], 1);
		// It did not sleep through the window: the 30 s window is still closed when the run is over.
		const after = await api(sb.baseUrl, key, 'GET', '/articles?limit=1');
		assert.equal(after.status, 429, 'the run returned only after the window had reset');
	});

	test('an exhausted daily quota gets its own message and is not slept through', async () => {
		const key = await newKey(sb.url, ['articles:read']);
		await control(sb.url, 'config', { dailyQuota: 1 });
		const result = await runCall(
			apiKeyCredentials(sb.baseUrl, key),
			{ path: '/articles', qs: '{"limit": 1}' },
			{
				input: [{}, {}],
			},
		);
		assert.equal(result.success, false);
		assert.match(result.error?.message ?? '', /daily request quota of the ERP API is exhausted/);
		assert.match(
			String((result.error as IDataObject | undefined)?.description),
			/accepted again from \d{4}-\d\d-\d\dT00:00:00/,
		);
		const seen = await stats(sb.url);
		assert.equal(seen.byStatus['200'], 1);
		assert.equal(seen.byStatus['429'], 1, 'no retry on the quota');
	});

	test('pacing keeps 429s rare over several windows', async () => {
		const key = await newKey(sb.url, ['articles:read']);
		await control(sb.url, 'config', { rateLimit: { limit: 5, windowSeconds: 1 } });
		const input = Array.from({ length: 16 }, () => ({}));
		const result = await runCall(
			apiKeyCredentials(sb.baseUrl, key),
			{ path: '/articles', qs: '{"limit": 1}' },
			{ input },
		);
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.output('Call').length, 16);
		const seen = await stats(sb.url);
		assert.equal(seen.byStatus['200'], 16);
		assert.equal(seen.byStatus['429'] ?? 0, 0, 'paced under the ceiling');
		// 16 answered 200 and none 429 under 5 per window: the reader waited for at least 3 window
		// resets (counted by the sandbox, not by the test's clock) instead of hammering.
	});
});

describe('retries', () => {
	test('a GET is retried across injected 503s, resets and a cut-off body', async () => {
		await control(sb.url, 'faults', {
			faults: [
				{ kind: 'status', status: 503, count: 1, methods: ['GET'] },
				{ kind: 'reset', count: 1, methods: ['GET'] },
				{ kind: 'badBody', count: 1, methods: ['GET'] },
			],
		});
		const result = await runCall(apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full), {
			path: '/articles',
			qs: '{"limit": 3}',
		});
		assert.equal(result.success, true, result.error?.message);
		assert.equal((result.output('Call')[0].data as IDataObject[]).length, 3);
		const seen = await stats(sb.url);
		assert.deepEqual(seen.faults, { status: 1, reset: 1, badBody: 1 });
		assert.equal(seen.byPath['GET /v1/articles'], 4);
	});

	test('a timed-out GET is retried', async () => {
		await control(sb.url, 'faults', {
			// Far longer than the timeout, and the timeout far longer than a normal answer even on a
			// loaded machine: the test does not depend on the machine's speed.
			faults: [{ kind: 'slow', ms: 12_000, count: 1, methods: ['GET'] }],
		});
		const result = await runCall(apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full), {
			path: '/articles',
			qs: '{"limit": 1}',
			timeoutSeconds: 3,
		});
		assert.equal(result.success, true, result.error?.message);
		const seen = await stats(sb.url);
		assert.equal(seen.faults.slow, 1);
		assert.equal(seen.byPath['GET /v1/articles'], 2);
	});

	test('a POST meeting a refused connection (never sent) is retried, then reported', async () => {
		const server = await startRecordingServer();
		const closedBaseUrl = `${server.url}/v1`;
		await server.close();
		const result = await runCall(apiKeyCredentials(closedBaseUrl, DEMO_KEYS.full), {
			method: 'POST',
			path: '/articles',
			body: JSON.stringify(newArticle('T-REFUSED')),
			// A zero cap also caps our own backoff: the retries run at once.
			requestOptions: { maxWaitSeconds: 0 },
		});
		assert.equal(result.success, false);
		assert.match(
			result.error?.message ?? '',
			/Could not reach the ERP API at 127\.0\.0\.1:\d+: the connection was refused/,
		);
		const description = String((result.error as IDataObject | undefined)?.description);
		assert.match(description, /Gave up after 6 attempts/);
		assert.doesNotMatch(description, /may have been applied/);
	});

	test('a POST whose connection is reset is not resent', async () => {
		await control(sb.url, 'faults', { faults: [{ kind: 'reset', count: 1, methods: ['POST'] }] });
		const result = await runCall(apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full), {
			method: 'POST',
			path: '/articles',
			body: JSON.stringify(newArticle('T-RESET')),
		});
		assert.equal(result.success, false);
		assert.match(
			result.error?.message ?? '',
			/Could not reach the ERP API at 127\.0\.0\.1:\d+: the connection was closed unexpectedly/,
		);
		assert.equal((await stats(sb.url)).byPath['POST /v1/articles'], 1);
	});
});

describe('idempotency', () => {
	const invoice = (reference: string): IDataObject => ({
		client_id: 'cli_0001',
		lignes: [{ article_id: 'art_0001', quantite: 1 }],
		reference_externe: reference,
	});

	async function ids(): Promise<{ client: string; article: string }> {
		const clients = await api(sb.baseUrl, DEMO_KEYS.full, 'GET', '/clients?limit=1');
		const articles = await api(sb.baseUrl, DEMO_KEYS.full, 'GET', '/articles?limit=1');
		return {
			client: (clients.json.data as IDataObject[])[0].id as string,
			article: (articles.json.data as IDataObject[])[0].id as string,
		};
	}

	function invoiceBody(client: string, article: string, reference: string): string {
		return JSON.stringify({
			...invoice(reference),
			client_id: client,
			lignes: [{ article_id: article, quantite: 1 }],
		});
	}

	test('failAfterCommit: the POST is not resent, one invoice exists, and a re-run replays it', async () => {
		const { client, article } = await ids();
		const before = (await stats(sb.url)).invoices;
		await control(sb.url, 'faults', {
			faults: [{ kind: 'failAfterCommit', status: 500, count: 1, methods: ['POST'] }],
		});
		const credentials = apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full);
		const parameters = {
			method: 'POST',
			path: '/factures',
			body: invoiceBody(client, article, 'ORDER-1'),
		};

		const failed = await runCall(credentials, parameters, { workflowId: 'wf-idem' });
		assert.equal(failed.success, false);
		assert.match(failed.error?.message ?? '', /server error \(HTTP 500\)/);
		let seen = await stats(sb.url);
		assert.equal(seen.byPath['POST /v1/factures'], 1, 'not resent blindly');
		assert.equal(seen.invoices, before + 1, 'the write was committed once');

		// Re-running the failed execution sends the same derived key: the ERP replays its first answer.
		const rerun = await runCall(credentials, parameters, { workflowId: 'wf-idem' });
		assert.equal(rerun.success, true, rerun.error?.message);
		const replayed = rerun.output('Call')[0];
		assert.equal(replayed.reference_externe, 'ORDER-1');
		seen = await stats(sb.url);
		assert.equal(seen.invoices, before + 1, 'no second invoice');
		const listed = await api(
			sb.baseUrl,
			DEMO_KEYS.full,
			'GET',
			`/factures/${replayed.id as string}`,
		);
		assert.equal(listed.status, 200);
	});

	test('the automatic key: equal requests replay, other bodies or workflows create', async () => {
		const { client, article } = await ids();
		const credentials = apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full);
		const before = (await stats(sb.url)).invoices;
		/** The id of the invoice that POST /factures with this body, in this workflow, answers. */
		const create = async (tag: string, workflowId: string) =>
			(
				await runCall(
					credentials,
					{ method: 'POST', path: '/factures', body: invoiceBody(client, article, tag) },
					{ workflowId },
				)
			).output('Call')[0].id;
		const first = await create('A', 'wf-a');
		assert.equal(await create('A', 'wf-a'), first, 'replayed');
		assert.equal((await stats(sb.url)).invoices, before + 1);

		assert.notEqual(await create('B', 'wf-a'), first, 'another body');
		assert.notEqual(await create('A', 'wf-b'), first, 'another workflow');
		assert.equal((await stats(sb.url)).invoices, before + 3);
	});

	test('keys off: every request creates; a custom key reused with another body is refused clearly', async () => {
		const { client, article } = await ids();
		const credentials = apiKeyCredentials(sb.baseUrl, DEMO_KEYS.full);
		const before = (await stats(sb.url)).invoices;
		const off = {
			method: 'POST',
			path: '/factures',
			body: invoiceBody(client, article, 'C'),
			requestOptions: { idempotency: 'off' },
		};
		await runCall(credentials, off);
		await runCall(credentials, off);
		assert.equal((await stats(sb.url)).invoices, before + 2);

		const custom = (reference: string) => ({
			method: 'POST',
			path: '/factures',
			body: invoiceBody(client, article, reference),
			requestOptions: { idempotency: 'custom', customIdempotencyKey: 'order-7781' },
		});
		const first = await runCall(credentials, custom('D'));
		assert.equal(first.success, true, first.error?.message);
		const reused = await runCall(credentials, custom('E'));
		assert.equal(reused.success, false);
		assert.match(
			reused.error?.message ?? '',
			/Idempotency-Key was already used for a different request/,
		);
		assert.equal((await stats(sb.url)).invoices, before + 3);
	});
});
