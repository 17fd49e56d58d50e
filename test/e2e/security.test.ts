/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The security and exactly-once promises in real n8n 2.41.1, as users run it (issue 12):
 * - the API key goes only to its credential's own origin, through n8n's real HTTP Request node
 *   (n8n-nodes-base as n8n ships it: legacy `uri` options, paginated or not);
 * - a replayed ERP Trigger delivery never starts a second run: sequentially, concurrently, and
 *   after an n8n restart, with Automatic and with Manual registration.
 * Every counter has a control that must count more than one, so that it can see a failure.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { importWorkflows, SANDBOX_CREDENTIAL, type Workflow } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import {
	freePort,
	keepFilesOnFailure,
	n8nCli,
	type N8nConfig,
	N8nRest,
	prepareInstance,
	type RunningN8n,
	skipE2e,
	startN8n,
} from '../../scripts/n8n-instance';
import type { SignedDelivery } from '../trigger/helpers';
import {
	deliver,
	registrationSecret,
	replayChecks,
	settledRuns,
	sign,
	started,
	triggerWorkflow,
	type TriggerTarget,
} from './trigger-replay';

const SKIP = skipE2e();
const log = (line: string) => process.stderr.write(`[e2e security] ${line}\n`);
const MINUTE = 60_000;

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** A listener on another origin that records every request it receives. */
type Listener = {
	url: string;
	requests: Array<{ url: string; authorization?: string }>;
	close(): Promise<void>;
};

async function startListener(): Promise<Listener> {
	const requests: Listener['requests'] = [];
	const server = http.createServer((req, res) => {
		requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ data: [{ stolen: false }], next_cursor: null }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

const IDS = {
	http: 'ErpSecHttp000001',
	httpPaginated: 'ErpSecHttp000002',
	httpNextPage: 'ErpSecHttp000003',
	httpControl: 'ErpSecHttp000004',
	triggerAuto: 'ErpSecTrigAuto01',
	triggerManual: 'ErpSecTrigManu01',
};
const MANUAL_CREDENTIAL = { id: 'ErpSecManual0001', name: 'ERP sandbox (manual secret)' };
const MANUAL_SECRET = `whsec_${Buffer.from('e2e-manual-registration-secret-32b').toString('base64')}`;
const HOOK_IDS = {
	auto: '5b0f9b5e-7c57-4c8e-9d36-0b8f7a1e2c01',
	manual: '5b0f9b5e-7c57-4c8e-9d36-0b8f7a1e2c02',
};

/** Webhook (POST, answers with the last node) -> HTTP Request with the ERP API credential. */
function httpWorkflow(
	id: string,
	webhookPath: string,
	httpParameters: Record<string, unknown>,
	predefinedCredential = true,
): Workflow {
	return {
		id,
		name: `E2E security: ${webhookPath}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-a`,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: `${id.toLowerCase()}-hook`,
				parameters: {
					httpMethod: 'POST',
					path: webhookPath,
					responseMode: 'lastNode',
					options: {},
				},
			},
			{
				id: `${id}-b`,
				name: 'HTTP Request',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [220, 0],
				onError: 'continueRegularOutput',
				...(predefinedCredential ? { credentials: { erpApi: SANDBOX_CREDENTIAL } } : {}),
				parameters: {
					method: 'GET',
					url: '={{ $json.body.url }}',
					...(predefinedCredential
						? { authentication: 'predefinedCredentialType', nodeCredentialType: 'erpApi' }
						: {}),
					...httpParameters,
				},
			},
		],
		connections: { Webhook: { main: [[{ node: 'HTTP Request', type: 'main', index: 0 }]] } },
	};
}

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the key's origin and replay protection`,
	() => {
		let userFolder: string | undefined;
		let config: N8nConfig;
		let sandbox: Sandbox;
		let listener: Listener;
		let n8n: RunningN8n | undefined;
		let rest: N8nRest;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			const prepared = await prepareInstance('n8n-nodes-erp-e2e-security-', log);
			userFolder = prepared.userFolder;
			const { env, paths } = prepared;
			sandbox = await startSandbox({ port: 0, rateLimit: false });
			listener = await startListener();
			config = { env, paths, port: await freePort(), brokerPort: await freePort() };

			const credentialFile = path.join(userFolder, 'manual-credential.json');
			fs.writeFileSync(
				credentialFile,
				JSON.stringify([
					{
						...MANUAL_CREDENTIAL,
						type: 'erpApi',
						data: {
							environment: 'sandbox',
							baseUrl: sandbox.baseUrl,
							apiKey: DEMO_KEYS.full,
							webhookSecret: MANUAL_SECRET,
						},
					},
				]),
				{ mode: 0o600 },
			);
			await n8nCli(config, ['import:credentials', `--input=${credentialFile}`], log);
			fs.rmSync(credentialFile);

			const pagination = (extra: Record<string, unknown>) => ({
				options: {
					pagination: {
						pagination: {
							paginationCompleteWhen: 'other',
							limitPagesFetched: true,
							maxRequests: 3,
							...extra,
						},
					},
				},
			});
			await importWorkflows(
				config,
				{
					sandboxBaseUrl: sandbox.baseUrl,
					workflows: [
						httpWorkflow(IDS.http, 'sec-http', { options: {} }),
						httpWorkflow(
							IDS.httpPaginated,
							'sec-http-paginated',
							pagination({
								paginationMode: 'updateAParameterInEachRequest',
								parameters: {
									parameters: [
										{ type: 'qs', name: 'cursor', value: '={{ $response.body.next_cursor }}' },
									],
								},
								completeExpression: '={{ !$response.body.next_cursor }}',
							}),
						),
						// Page 1 from the credential's own Base URL, page 2 from another origin.
						httpWorkflow(
							IDS.httpNextPage,
							'sec-http-next-page',
							pagination({
								paginationMode: 'responseContainsNextURL',
								nextURL: `${listener.url}/v1/articles?page=2`,
								completeExpression: '={{ $pageCount >= 2 }}',
							}),
						),
						// Control: the listener does record an Authorization header when one is sent.
						httpWorkflow(
							IDS.httpControl,
							'sec-http-control',
							{
								sendHeaders: true,
								headerParameters: {
									parameters: [{ name: 'Authorization', value: 'Bearer e2e-control-marker' }],
								},
								options: {},
							},
							false,
						),
						triggerWorkflow(IDS.triggerAuto, HOOK_IDS.auto, 'automatic', SANDBOX_CREDENTIAL),
						triggerWorkflow(IDS.triggerManual, HOOK_IDS.manual, 'manual', MANUAL_CREDENTIAL),
					],
				},
				log,
			);
			log('starting n8n');
			n8n = await startN8n(config);
			rest = new N8nRest(n8n.url);
			await rest.signInAsOwner();
			for (const id of [IDS.http, IDS.httpPaginated, IDS.httpNextPage, IDS.httpControl])
				await rest.activate(id);
		}, 75 * MINUTE);

		afterAll(async () => {
			await n8n?.stop();
			await sandbox?.close();
			await listener?.close();
			files.cleanUp(userFolder, config?.paths.n8nLog ?? '');
		}, 80 * MINUTE);

		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		async function callHttp(webhookPath: string, url: string): Promise<any> {
			const response = await fetch(`${n8n!.url}/webhook/${webhookPath}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ url }),
				signal: AbortSignal.timeout(60_000),
			});
			const text = await response.text();
			assert.equal(response.status, 200, text);
			return JSON.parse(text);
		}

		const ORIGIN_REFUSAL =
			/only sends its API key to its own Base URL \(http:\/\/127\.0\.0\.1:\d+\)/;

		it(
			"the HTTP Request node with the ERP API credential reaches the credential's own Base URL",
			track(async () => {
				const answer = await callHttp('sec-http', `${sandbox.baseUrl}/articles?limit=1`);
				assert.equal(answer.error, undefined, JSON.stringify(answer));
				assert.equal(answer.data.length, 1);
				assert.match(answer.data[0].id, /^art_/);
				const paged = await callHttp('sec-http-paginated', `${sandbox.baseUrl}/clients?limit=2`);
				assert.equal(paged.error, undefined, JSON.stringify(paged));
			}),
			80 * MINUTE,
		);

		it(
			'the HTTP Request node cannot carry the key to another origin, paginated or not; the listener receives no Authorization header',
			track(async () => {
				const control = await callHttp('sec-http-control', `${listener.url}/v1/control`);
				assert.equal(control.error, undefined, JSON.stringify(control));
				assert.deepEqual(
					listener.requests.map((r) => r.authorization),
					['Bearer e2e-control-marker'],
					'control: the listener records the Authorization header it receives',
				);
				listener.requests.length = 0;

				const plain = await callHttp('sec-http', `${listener.url}/steal`);
				assert.match(JSON.stringify(plain.error), ORIGIN_REFUSAL);
				const paginated = await callHttp('sec-http-paginated', `${listener.url}/steal`);
				assert.match(JSON.stringify(paginated.error), ORIGIN_REFUSAL);
				const nextPage = await callHttp(
					'sec-http-next-page',
					`${sandbox.baseUrl}/articles?limit=1`,
				);
				assert.match(JSON.stringify(nextPage.error ?? nextPage), ORIGIN_REFUSAL);
				assert.ok(!JSON.stringify([plain, paginated, nextPage]).includes(DEMO_KEYS.full));
				assert.deepEqual(
					listener.requests.filter((r) => r.authorization !== undefined),
					[],
					'no Authorization header reached the other origin',
				);
				assert.deepEqual(listener.requests, [], 'nothing at all reached the other origin');
			}),
			80 * MINUTE,
		);

		const targets = {
			auto: (): TriggerTarget => ({
				webhookUrl: n8n!.url,
				hookId: HOOK_IDS.auto,
				workflowId: IDS.triggerAuto,
				rest,
			}),
			manual: (): TriggerTarget => ({
				webhookUrl: n8n!.url,
				hookId: HOOK_IDS.manual,
				workflowId: IDS.triggerManual,
				rest,
			}),
		};
		const captured: Record<'auto' | 'manual', SignedDelivery | undefined> = {
			auto: undefined,
			manual: undefined,
		};
		let autoSecret = '';

		it(
			'Automatic registration: a replayed delivery never starts a second run, one by one or ten at once',
			track(async () => {
				await rest.activate(IDS.triggerAuto);
				autoSecret = await registrationSecret(sandbox.url, targets.auto());
				await replayChecks(targets.auto(), autoSecret);
				captured.auto = sign(autoSecret, 'evt_restart_auto');
				assert.ok(started(await deliver(targets.auto(), captured.auto)));
			}),
			80 * MINUTE,
		);

		it(
			'Manual registration: a replayed delivery never starts a second run, one by one or ten at once',
			track(async () => {
				await rest.activate(IDS.triggerManual);
				await replayChecks(targets.manual(), MANUAL_SECRET);
				captured.manual = sign(MANUAL_SECRET, 'evt_restart_manual');
				assert.ok(started(await deliver(targets.manual(), captured.manual)));
			}),
			80 * MINUTE,
		);

		it(
			'after an n8n restart, a replay inside the tolerance window starts no run; new deliveries still do',
			track(async () => {
				assert.ok(captured.auto && captured.manual, 'the two trigger tests ran first');
				const before = {
					auto: (await settledRuns(targets.auto())).length,
					manual: (await settledRuns(targets.manual())).length,
				};
				assert.deepEqual(before, { auto: 24, manual: 24 });
				log('restarting n8n');
				await n8n!.stop();
				n8n = await startN8n(config);
				rest = new N8nRest(n8n.url);
				await rest.signInAsOwner();
				// n8n takes the published workflows' webhooks back up at start-up.
				for (const [target, delivery] of [
					[targets.auto(), captured.auto],
					[targets.manual(), captured.manual],
				] as const) {
					const replay = await deliver(target, delivery);
					assert.equal(replay.status, 409, replay.body);
					assert.match(replay.body, /signed_before_restart/);
				}
				// Control: the triggers work after the restart, and the counters move.
				assert.ok(started(await deliver(targets.auto(), sign(autoSecret, 'evt_after_auto'))));
				assert.ok(
					started(await deliver(targets.manual(), sign(MANUAL_SECRET, 'evt_after_manual'))),
				);
				assert.equal((await settledRuns(targets.auto())).length, before.auto + 1);
				assert.equal((await settledRuns(targets.manual())).length, before.manual + 1);
			}),
			80 * MINUTE,
		);
	},
);
