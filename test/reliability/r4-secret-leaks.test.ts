/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// R4 secret leaks (issue 8). The harness captures, in every test file, each node output, error
// (message, description, context, causes), trigger answer and log line, and fails the file when
// one contains a registered secret (test/harness/leaks.ts). This suite adds the broad scenarios
// that most need it: every error status from the sandbox and from a hostile API that echoes the
// credential back in its errors, OAuth2 refresh and reconnect, trigger activation and
// deliveries, with API keys and OAuth2. It first proves that the capture is not vacuous: leaks
// planted on purpose in an output, an error, a log line and console output are each caught.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { DEMO_KEYS, DEMO_OAUTH_CLIENT, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import {
	TestCredentials,
	activateTrigger,
	connectOAuth2,
	describeFinding,
	leakCounts,
	leakFindings,
	runWorkflow,
	secretNames,
	takeFindingsSince,
} from '../harness';
import { startRecordingServer, testNodeDescription } from '../harness/fixtures';
import type { LeakFinding } from '../harness';
import type { RecordedRequest, RecordingServer } from '../harness/fixtures';
import { control } from '../trigger/helpers';
import { type Figure, SOAK, atLeast, exactly, note, printFigures } from './common';
import { byId } from '../erp/setup';

const SUITE = 'R4 secret leaks';
const ERP = 'n8n-nodes-erp.erp';
const PLANTED = 'r4-planted';
const getArticle = (id = 'art_99999999'): INodeParameters => ({
	resource: 'article',
	operation: 'get',
	articleId: byId(id),
});
const createArticle = (reference: string): INodeParameters => ({
	resource: 'article',
	operation: 'create',
	reference,
	designation: 'R4 article',
	prix_ht: 100,
	tva: 2000,
});

let sandbox: SandboxHandle;
let hostile: RecordingServer;
const figures: Figure[] = [];
let scenarios = 0;

/** A control request (GET without a body, else POST); its body. */
const configure = async (path: string, body?: unknown): Promise<IDataObject> =>
	(await control(sandbox, body === undefined ? 'GET' : 'POST', path, body)).body as IDataObject;

const keyCredentials = (apiKey: string, baseUrl = sandbox.baseUrl, webhookSecret?: string) =>
	new TestCredentials({
		erpApi: {
			apiKey,
			environment: 'sandbox',
			baseUrl,
			...(webhookSecret ? { webhookSecret } : {}),
		},
	});

/** Runs one ERP node, with and without Continue On Fail: both the error item and the execution error are scanned. */
async function runBoth(
	credentials: TestCredentials,
	parameters: INodeParameters,
	workflowId: string,
): Promise<void> {
	for (const continueOnFail of [true, false]) {
		scenarios++;
		await runWorkflow({
			nodes: [{ name: 'ERP', type: ERP, parameters, continueOnFail }],
			credentials,
			workflowId: `${workflowId}-${continueOnFail ? 'cof' : 'stop'}`,
		});
	}
}

/**
 * A hostile or buggy API that echoes the credential it received in its error answers, in each
 * error shape the transport reads: the contract's body, a bare message, an OAuth-style error,
 * field details, and a non-JSON body. The status is the last path segment's number.
 */
function echoAnswer(req: RecordedRequest): {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
} {
	const authorization = String(req.headers.authorization ?? '');
	const token = authorization.replace(/^Bearer\s+/i, '');
	if (req.url.startsWith('/oauth/token'))
		return {
			status: 400,
			body: { error: 'invalid_grant', error_description: `refresh token ${req.body} is dead` },
		};
	// GETs carry the wanted answer in the query, POSTs in their (custom) Idempotency-Key.
	const wanted = `${req.url} ${String(req.headers['idempotency-key'] ?? '')}`;
	const status = Number(/status=(\d+)/.exec(wanted)?.[1] ?? 500);
	const shape = Number(/shape=(\d+)/.exec(wanted)?.[1] ?? 0);
	const headers: Record<string, string> = status === 429 ? { 'retry-after': '3600' } : {};
	const bodies: unknown[] = [
		{
			error: {
				code: 'echo',
				message: `Credential ${token} refused (${authorization})`,
				details: [{ field: 'key', message: token }],
			},
		},
		{ message: `Your key is ${token}` },
		{ error: 'invalid_token', error_description: `token ${token}` },
		{ errors: [{ message: `bad ${authorization}` }] },
	];
	if (shape === bodies.length)
		return {
			status,
			headers: { ...headers, 'content-type': 'text/plain' },
			body: `<html>${authorization}</html>`,
		};
	return { status, headers, body: bodies[shape % bodies.length] };
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED });
	hostile = await startRecordingServer(echoAnswer);
});

afterAll(async () => {
	await hostile?.close();
	await sandbox?.close();
	printFigures(SUITE, figures);
});

/* ---------------------------------------------------------------- planted leaks */

function leakyNode(leak: 'output' | 'error' | 'log'): INodeType {
	return {
		description: testNodeDescription('leaky', 'Leaky', {
			description: 'Test-only: leaks a secret on purpose',
			credentials: [
				{ name: 'erpApi', required: false },
				{ name: 'erpOAuth2Api', required: false },
			],
			properties: [],
		}),
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const apiKey = String((await this.getCredentials('erpApi')).apiKey);
			const oauth = (await this.getCredentials('erpOAuth2Api')).oauthTokenData as IDataObject;
			if (leak === 'output') return [[{ json: { note: `key is ${apiKey}` } }]];
			if (leak === 'log') {
				this.logger.info('calling the ERP', { token: oauth.refresh_token });
				return [[{ json: {} }]];
			}
			throw new NodeOperationError(this.getNode(), 'The call failed', {
				description: `with token ${String(oauth.access_token)}`,
			});
		},
	};
}

describe(SUITE, () => {
	it("on the wire: a secret sent to another origin than its credential's is caught raw, JSON-escaped, base64 (Basic), URL-encoded and truncated", async () => {
		const apiKey = `sk_test_${randomBytes(16).toString('hex')}`;
		const clientSecret = `cs_${randomBytes(16).toString('hex')}`;
		const elsewhere = await startRecordingServer();
		const home = await startRecordingServer();
		try {
			// Storing the credential registers its secrets and the origins of its URLs.
			const credentials = new TestCredentials({
				erpApi: { apiKey, environment: 'sandbox', baseUrl: `${home.url}/v1` },
				erpOAuth2Api: {
					environment: 'sandbox',
					baseUrl: `${home.url}/v1`,
					accessTokenUrl: `${home.url}/oauth/token`,
					clientId: 'client-1',
					clientSecret,
				},
			});
			assert.ok(credentials.get('erpApi'));
			const send = async (
				server: RecordingServer,
				init: { path?: string; headers?: Record<string, string>; body?: string },
			) => {
				const answer = await fetch(`${server.url}${init.path ?? '/'}`, {
					method: init.body === undefined ? 'GET' : 'POST',
					headers: init.headers,
					body: init.body,
				});
				await answer.text();
			};
			const forms: Array<
				[string, { path?: string; headers?: Record<string, string>; body?: string }, string]
			> = [
				['raw header', { headers: { authorization: `Bearer ${apiKey}` } }, 'erpApi.apiKey'],
				['JSON-escaped body', { body: JSON.stringify({ note: `"${apiKey}"\n` }) }, 'erpApi.apiKey'],
				[
					'base64 in a Basic header',
					{
						headers: {
							authorization: `Basic ${Buffer.from(`client-1:${clientSecret}`).toString('base64')}`,
						},
					},
					'erpOAuth2Api.clientSecret',
				],
				[
					'URL-encoded query',
					{ path: `/x?k=${encodeURIComponent(`${apiKey} /`)}` },
					'erpApi.apiKey',
				],
				['truncated', { body: `prefix ${apiKey.slice(0, 28)}` }, 'erpApi.apiKey'],
			];
			const caught: string[] = [];
			for (const [form, init, secretName] of forms) {
				const mark = leakFindings().length;
				await send(elsewhere, init);
				const found = takeFindingsSince(mark);
				if (found.some((f) => f.capture === 'request' && f.secretName === secretName))
					caught.push(form);
			}
			// Control: the same requests to the credential's own origin are not leaks.
			const mark = leakFindings().length;
			for (const [, init] of forms) await send(home, init);
			const atHome = takeFindingsSince(mark);
			figures.push(
				exactly(
					SUITE,
					`wire: forms caught at a foreign origin (${forms.map(([f]) => f).join(', ')})`,
					caught.length,
					forms.length,
				),
				exactly(
					SUITE,
					"wire: findings for the same requests to the credential's origin (control)",
					atHome.length,
					0,
				),
			);
			assert.deepEqual(
				caught,
				forms.map(([form]) => form),
			);
			assert.deepEqual(atHome.map(describeFinding), []);
		} finally {
			await elsewhere.close();
			await home.close();
		}
	});

	it('catches leaks planted in an output, an error description, a log line and console output', async () => {
		const credentials = new TestCredentials({
			erpApi: {
				apiKey: `sk_test_${randomBytes(12).toString('hex')}`,
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
			},
			erpOAuth2Api: {
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				clientId: DEMO_OAUTH_CLIENT.clientId,
				clientSecret: `cs_${randomBytes(12).toString('hex')}`,
				oauthTokenData: {
					access_token: `at_${randomBytes(12).toString('hex')}`,
					refresh_token: `rt_${randomBytes(12).toString('hex')}`,
				},
			},
		});
		assert.deepEqual(leakFindings(), [], 'no leak before the planted ones');
		const caught: Record<string, string[]> = {};
		const describe = (found: LeakFinding[]) => found.map((f) => `${f.capture}:${f.secretName}`);
		for (const leak of ['output', 'error', 'log'] as const) {
			const type = `test.leaky-${leak}`;
			const mark = leakFindings().length;
			await runWorkflow({
				nodes: [{ name: 'Leaky', type, parameters: {} }],
				extraNodeTypes: { [type]: leakyNode(leak) },
				credentials,
				workflowId: `${PLANTED}-${leak}`,
			});
			caught[leak] = describe(takeFindingsSince(mark));
		}
		// console: a line printed by anything in the process (here the test itself).
		const secret = String(credentials.get('erpOAuth2Api').clientSecret);
		const mark = leakFindings().length;
		// eslint-disable-next-line no-console -- the planted console leak
		console.error(`${PLANTED} client secret: ${secret}`);
		caught.console = describe(takeFindingsSince(mark));

		const planted = 4;
		const detected = Object.values(caught).filter((found) => found.length > 0).length;
		figures.push(
			exactly(SUITE, 'planted leaks caught (output, error, log line, console)', detected, planted),
		);
		assert.ok(caught.output.includes('output:erpApi.apiKey'), JSON.stringify(caught));
		// The error is seen in the node's run, the execution's error and n8n's log line about it.
		assert.ok(
			caught.error.includes('error:erpOAuth2Api.oauthTokenData.access_token'),
			JSON.stringify(caught),
		);
		assert.ok(
			caught.log.includes('log:erpOAuth2Api.oauthTokenData.refresh_token'),
			JSON.stringify(caught),
		);
		assert.ok(caught.console.includes('log:erpOAuth2Api.clientSecret'), JSON.stringify(caught));
	});

	it('every error status, from the sandbox and from an API that echoes the credential: no secret in any output, error or log', async () => {
		const full = keyCredentials(DEMO_KEYS.full);
		// Real answers of the sandbox: 404, 409 (duplicate reference), 422, 403 (read-only key), 401 (revoked key).
		await runBoth(full, getArticle(), 'r4-404');
		await runBoth(full, createArticle('REF-000001'), 'r4-409');
		await runBoth(
			full,
			{
				resource: 'settlement',
				operation: 'create',
				invoiceId: byId('fac_99999999'),
				montant: 100,
				mode: 'virement',
			},
			'r4-422',
		);
		await runBoth(keyCredentials(DEMO_KEYS.readonly), createArticle('R4-RO'), 'r4-403');
		const { key: revoked } = await configure('/keys', {
			scopes: ['articles:read'],
			name: 'r4-revoked',
		});
		await configure('/keys/revoke', { key: revoked });
		await runBoth(keyCredentials(String(revoked)), getArticle(), 'r4-401');
		// Daily quota exhausted.
		const { key: quotaKey } = await configure('/keys', {
			scopes: ['articles:read'],
			name: 'r4-quota',
		});
		await configure('/config', { dailyQuota: 1 });
		await runBoth(keyCredentials(String(quotaKey)), getArticle(), 'r4-quota');
		await configure('/config', { dailyQuota: 100_000 });
		// Injected: 400, 500, 502, 503, 504, a reset and a cut-off body on writes (never resent).
		for (const fault of [
			{ kind: 'status', status: 400 },
			{ kind: 'status', status: 500 },
			{ kind: 'status', status: 502 },
			{ kind: 'status', status: 503 },
			{ kind: 'status', status: 504 },
			{ kind: 'reset' },
			{ kind: 'badBody' },
			{ kind: 'failAfterCommit', status: 500 },
		]) {
			await configure('/faults', { faults: [{ ...fault, count: 2, methods: ['POST'] }] });
			await runBoth(
				full,
				createArticle(`R4-${fault.kind}-${String((fault as IDataObject).status ?? '')}`),
				`r4-fault-${fault.kind}`,
			);
		}
		await configure('/faults', { faults: [] });

		// The hostile API, with an API key and with OAuth2 (its 401 triggers a refresh it refuses).
		const apiKey = `sk_test_${randomBytes(16).toString('hex')}`;
		const oauth = new TestCredentials({
			erpOAuth2Api: {
				environment: 'sandbox',
				baseUrl: `${hostile.url}/v1`,
				authUrl: `${hostile.url}/oauth/authorize`,
				accessTokenUrl: `${hostile.url}/oauth/token`,
				clientId: DEMO_OAUTH_CLIENT.clientId,
				clientSecret: `cs_${randomBytes(16).toString('hex')}`,
				oauthTokenData: {
					access_token: `at_${randomBytes(16).toString('hex')}`,
					refresh_token: `rt_${randomBytes(16).toString('hex')}`,
					token_type: 'Bearer',
				},
			},
		});
		const statuses = [400, 401, 403, 404, 409, 422, 429, 500];
		for (const [index, status] of statuses.entries()) {
			// Every error shape with every status at soak size; in turn (each shape at least once) otherwise.
			for (const shape of SOAK ? [0, 1, 2, 3, 4] : [index % 5]) {
				// GET for 4xx; POST for 5xx (not retried), so the suite does not wait on backoff.
				const path = `/articles?status=${status}&shape=${shape}`;
				const parameters: INodeParameters =
					status >= 500
						? {
								...createArticle(`R4-H-${status}-${shape}`),
								requestOptions: { idempotency: 'custom', customIdempotencyKey: path },
							}
						: {
								resource: 'article',
								operation: 'getAll',
								returnAll: false,
								limit: 1,
								options: {
									queryParameters: {
										parameter: [
											{ name: 'status', value: String(status) },
											{ name: 'shape', value: String(shape) },
										],
									},
								},
							};
				await runBoth(
					keyCredentials(apiKey, `${hostile.url}/v1`),
					parameters,
					`r4-hostile-key-${status}-${shape}`,
				);
				await runBoth(
					oauth,
					{ ...parameters, authentication: 'oAuth2' },
					`r4-hostile-oauth-${status}-${shape}`,
				);
			}
		}
		assert.ok(hostile.requests.length >= statuses.length * 4, 'the hostile API was called');
	});

	it('OAuth2: connect, refresh with rotation, and the reconnect error', async () => {
		await configure('/config', { tokenLifetimes: { accessTokenSeconds: 1 } });
		try {
			const credentials = new TestCredentials({
				erpOAuth2Api: {
					environment: 'sandbox',
					baseUrl: sandbox.baseUrl,
					clientId: DEMO_OAUTH_CLIENT.clientId,
					clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
				},
			});
			await connectOAuth2(credentials);
			const stale = credentials.get('erpOAuth2Api');
			await sleep(1100);
			const parameters = {
				resource: 'article',
				operation: 'getAll',
				returnAll: false,
				limit: 2,
				authentication: 'oAuth2',
			};
			scenarios++;
			const refreshed = await runWorkflow({
				nodes: [{ name: 'ERP', type: ERP, parameters }],
				credentials,
				workflowId: 'r4-oauth-refresh',
			});
			assert.equal(refreshed.success, true, refreshed.error?.message);
			assert.equal(credentials.updates.length, 1, 'the rotated tokens were persisted');
			// A copy of the credential still holding the used refresh token.
			credentials.set('erpOAuth2Api', stale);
			await sleep(1100);
			await runBoth(credentials, parameters, 'r4-oauth-reconnect');
		} finally {
			await configure('/config', { tokenLifetimes: { accessTokenSeconds: 3600 } });
		}
	});

	it('trigger: registration secret and credential webhook secret, through activation, deliveries and failures', async () => {
		const credentials = keyCredentials(DEMO_KEYS.full);
		const trigger = await activateTrigger({
			parameters: { events: ['*'], options: { includeHeaders: true } },
			credentials,
			listen: true,
			workflowId: 'r4-trigger-auto',
		});
		const listener = await trigger.listen();
		// Real deliveries from the sandbox, signed with the registration's secret.
		await fetch(`${sandbox.url}/_sandbox/events`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ type: 'tva.declaree', data: { periode: '2026-10' } }),
		});
		const deadline = Date.now() + 5000;
		while (listener.runs.length === 0 && Date.now() < deadline) await sleep(20);
		assert.equal(listener.runs.length, 1, 'the sandbox delivery ran');
		// Refused deliveries: unsigned, wrong signature, malformed body.
		const refused: Array<Record<string, string>> = [
			{},
			{ 'webhook-id': 'evt_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' },
		];
		for (const headers of refused) {
			scenarios++;
			await trigger.deliver({
				headers: { 'content-type': 'application/json', ...headers },
				body: '{"id":"evt_x","type":"tva.declaree"}',
			});
		}
		await trigger.deactivate();

		// Manual mode: the secret is the credential's; without one, activation fails and says why.
		const secret = `whsec_${randomBytes(32).toString('base64')}`;
		const manual = await activateTrigger({
			parameters: { events: ['vente.creee'], registration: 'manual' },
			credentials: keyCredentials(DEMO_KEYS.full, sandbox.baseUrl, secret),
			workflowId: 'r4-trigger-manual',
		});
		scenarios++;
		await manual.deliver({
			headers: { 'content-type': 'application/json' },
			body: '{"id":"evt_y","type":"vente.creee"}',
		});
		await manual.deactivate();
		await assert.rejects(
			activateTrigger({
				parameters: { events: ['vente.creee'], registration: 'manual' },
				credentials,
				workflowId: 'r4-trigger-nosecret',
			}),
			/needs the webhook secret/,
		);
		scenarios += 4;

		const names = secretNames();
		for (const expected of [
			'erpApi.apiKey',
			'erpApi.webhookSecret',
			'erpOAuth2Api.clientSecret',
			'erpOAuth2Api.oauthTokenData.access_token',
			'erpOAuth2Api.oauthTokenData.refresh_token',
		]) {
			assert.ok(
				names.includes(expected),
				`no secret registered as ${expected}: ${names.join(', ')}`,
			);
		}
		assert.ok(
			names.some((name) => name.startsWith('static data of r4-trigger-auto')),
			'the registration secret was registered',
		);
	});

	it('totals: nothing leaked in this file', () => {
		const counts = leakCounts();
		const kinds = new Set(
			secretNames().map((name) =>
				name
					.replace(/ \(key part\)$/, '')
					.replace(/^static data of .*/, 'webhook registration secret'),
			),
		);
		figures.push(
			// Scenarios are counted by this file, scans by the harness: each scenario's output or
			// error must have reached the scanner.
			atLeast(
				SUITE,
				`outputs and errors scanned, at least one per scenario (${scenarios} scenarios: error statuses, hostile API, OAuth2, trigger)`,
				counts.outputs + counts.errors,
				scenarios,
			),
			{
				suite: SUITE,
				figure: `secrets registered (${[...kinds].join(', ')})`,
				value: counts.secrets,
				target: '>= 5 kinds',
				ok: kinds.size >= 5,
			},
			note(
				SUITE,
				'outputs / errors / log lines / outbound requests scanned',
				`${counts.outputs} / ${counts.errors} / ${counts.logLines} / ${counts.requests}`,
			),
			exactly(
				SUITE,
				'secrets found in outputs, errors or logs (this file; every file checks its own)',
				counts.findings,
				0,
			),
		);
		assert.ok(
			counts.outputs > 30 && counts.errors > 50 && counts.logLines > 100,
			JSON.stringify(counts),
		);
		assert.deepEqual(
			leakFindings().map((f) => `${f.secretName} in ${f.capture} at ${f.where}`),
			[],
		);
	});
});
