/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:compat` (issue 24): the promises of the README's Compatibility table, in each real
 * n8n of VERSIONS (./versions.ts: the floor, the last 1.x, and a 2.x before 2.34; `npm test`
 * covers the default N8N_VERSION); polling.compat.ts adds the polling trigger's catch-up.
 * Per version, one n8n with the packed package, the sandbox (2,000 articles) and two HTTPS fronts:
 * - load: our nodes, the AI-tool variant and both credentials;
 * - Return All exact under connection resets and 503s; control: resets on every attempt fail the
 *   run, after retries, naming ECONNRESET (what older n8n's NodeApiError hides: see attempt.ts);
 * - the key-origin guard through the real HTTP Request node, with its control;
 * - the trigger: registration, one run per ERP event, replay refused, a forged delivery 401;
 * - OAuth2: a PKCE-connected credential whose access token expires: two runs, two refreshes;
 * - TLS 1.3: refused where n8n can enforce it (from 2.20); accepted below, as the table says.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_KEYS, control, sandboxRequests, sandboxStats, UNPACED } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { keepFilesOnFailure, n8nExecute, skipE2e } from '../../scripts/n8n-instance';
import { expectCount, expectRuns } from '../e2e/count';
import {
	articlesWorkflow,
	assertPackLoaded,
	e2eLog,
	erp,
	MINUTE,
	startE2e,
	type E2e,
} from '../e2e/helpers';
import {
	callHttp,
	httpWorkflow,
	ORIGIN_REFUSAL,
	startListener,
	type Listener,
} from '../e2e/key-origin';
import { apiRequestWorkflow, payrollCredential } from '../e2e/oauth';
import {
	deliver,
	registrationSecret,
	replayChecks,
	sign,
	triggerWorkflow,
	type TriggerTarget,
} from '../e2e/trigger-replay';
import { listAll } from '../trigger/helpers';
import type { Front } from '../transport/tls-servers';
import { startTlsFronts, TLS_CREDENTIALS } from '../e2e/tls-fronts';
import { VERSIONS } from './versions';

const SKIP = skipE2e();
/** n8n honours a request's `agentOptions` (the TLS minimum) from 2.20 (see nodes/shared/tls.ts). */
const TLS_MINIMUM_FROM = [2, 20];
const ARTICLES = 2000;

const IDS = {
	returnAll: 'ErpCompatRetAll1',
	resets: 'ErpCompatResets1',
	http: 'ErpCompatHttp001',
	httpControl: 'ErpCompatHttp002',
	trigger: 'ErpCompatTrig001',
	payroll: 'ErpCompatOAuth01',
	tls12: 'ErpCompatTls1201',
	tls13: 'ErpCompatTls1301',
};
const HOOK_ID = '5b0f9b5e-7c57-4c8e-9d36-0b8f7a1e2c24';
function atLeast(version: string, [major, minor]: number[]): boolean {
	const [m, n] = version.split('.').map(Number);
	return m > major || (m === major && n >= minor);
}

(SKIP ? describe.skip : describe).each(VERSIONS)(
	'real n8n %s: the Compatibility table',
	(version) => {
		const log = e2eLog(`compat ${version}`);
		const files = keepFilesOnFailure(log);
		const track = files.track;
		let e2e: E2e;
		let listener: Listener;
		let tls12: Front;
		let tls13: Front;

		beforeAll(async () => {
			listener = await startListener();
			e2e = await startE2e({
				version,
				folderPrefix: `n8n-nodes-erp-compat-${version}-`,
				log,
				files,
				start: false,
				// Access tokens live 2 s: every OAuth2 run below starts with an expired one.
				sandbox: {
					rateLimit: UNPACED,
					articles: ARTICLES,
					tokenLifetimes: { accessTokenSeconds: 2 },
				},
				workflows: () => [
					articlesWorkflow(IDS.returnAll, SANDBOX_CREDENTIAL, { returnAll: true }),
					articlesWorkflow(IDS.resets, SANDBOX_CREDENTIAL, { returnAll: true }),
					httpWorkflow(IDS.http, 'compat-http', { options: {} }),
					httpWorkflow(
						IDS.httpControl,
						'compat-http-control',
						{
							sendHeaders: true,
							headerParameters: {
								parameters: [{ name: 'Authorization', value: 'Bearer compat-control-marker' }],
							},
							options: {},
						},
						false,
					),
					triggerWorkflow(IDS.trigger, HOOK_ID, 'automatic', SANDBOX_CREDENTIAL),
					apiRequestWorkflow(IDS.payroll, 'Compat: read the payroll slips', {
						path: '/paie/bulletins',
						queryParameters: { parameter: [{ name: 'periode', value: '2025-12' }] },
						returnAll: true,
					}),
					articlesWorkflow(IDS.tls12, TLS_CREDENTIALS.tls12),
					articlesWorkflow(IDS.tls13, TLS_CREDENTIALS.tls13),
				],
				credentials: async (started) => [
					await payrollCredential(started.config, started.sandbox),
					...fronts.credentials,
				],
			});
			// Before the start: n8n trusts the fronts' certificate (NODE_EXTRA_CA_CERTS).
			const fronts = await startTlsFronts(e2e);
			({ tls12, tls13 } = fronts);
			await e2e.start();
			for (const id of [IDS.http, IDS.httpControl]) await e2e.rest.activate(id);
		}, 60 * MINUTE);

		afterAll(async () => {
			await tls12?.close();
			await tls13?.close();
			await listener?.close();
			await e2e?.stop();
		}, 10 * MINUTE);

		it(
			'loads our nodes, the AI-tool variant and both credentials',
			track(async () => {
				await assertPackLoaded(e2e.rest);
			}),
			10 * MINUTE,
		);

		it(
			`Return All returns exactly the ${ARTICLES} articles while 10 % of GETs are reset and 10 % answer 503`,
			track(async () => {
				const truth = (await listAll(e2e.sandbox, '/articles')).map((a) => a.id);
				assert.equal(truth.length, ARTICLES);
				const onArticles = { methods: ['GET'], paths: ['/articles'], probability: 0.1 };
				await control(e2e.sandbox.url, 'faults', {
					seed: 24,
					faults: [
						{ kind: 'reset', ...onArticles },
						{ kind: 'status', status: 503, ...onArticles },
					],
				});
				try {
					const run = await n8nExecute(e2e.config, IDS.returnAll, log);
					const ids = run.data.resultData.runData.ERP[0].data.main[0].map(
						(item: { json: { id: string } }) => item.json.id,
					);
					assert.deepEqual(ids, truth, 'the same articles, in the same order, none twice');
				} finally {
					await control(e2e.sandbox.url, 'faults', { faults: [] });
				}
				// The faults did fire (the run is over: these figures no longer move).
				const stats = await sandboxStats(e2e.sandbox.url);
				assert.ok((stats.faults.reset ?? 0) > 0, `no reset fired: ${JSON.stringify(stats.faults)}`);
				assert.ok(
					(stats.byStatus['503'] ?? 0) > 0,
					`no 503 answered: ${JSON.stringify(stats.byStatus)}`,
				);
			}),
			20 * MINUTE,
		);

		it(
			'control: resets on every attempt fail the run after the retries, naming ECONNRESET',
			track(async () => {
				await control(e2e.sandbox.url, 'faults', {
					faults: [{ kind: 'reset', methods: ['GET'], paths: ['/articles'] }],
				});
				try {
					await assert.rejects(n8nExecute(e2e.config, IDS.resets, log), (error: Error) => {
						assert.match(
							error.message,
							/Could not reach the ERP API at [^:]+:\d+: the connection was closed unexpectedly/,
						);
						assert.match(
							error.message,
							/Network error code: ECONNRESET\. Gave up after \d+ attempts\./,
						);
						return true;
					});
				} finally {
					await control(e2e.sandbox.url, 'faults', { faults: [] });
				}
			}),
			20 * MINUTE,
		);

		it(
			'the HTTP Request node with the ERP API credential reaches its Base URL, never another origin',
			track(async () => {
				const call = (path: string, url: string) => callHttp(e2e.n8n!.url, path, url);
				const own = await call('compat-http', `${e2e.sandbox.baseUrl}/articles?limit=1`);
				assert.equal(own.error, undefined, JSON.stringify(own));
				assert.match(own.data[0].id, /^art_/);
				const controlRun = await call('compat-http-control', `${listener.url}/v1/control`);
				assert.equal(controlRun.error, undefined, JSON.stringify(controlRun));
				assert.deepEqual(
					listener.requests.map((r) => r.authorization),
					['Bearer compat-control-marker'],
					'control: the listener records what reaches it',
				);
				listener.requests.length = 0;
				const stolen = await call('compat-http', `${listener.url}/steal`);
				assert.match(JSON.stringify(stolen.error), ORIGIN_REFUSAL);
				assert.ok(!JSON.stringify(stolen).includes(DEMO_KEYS.full));
				assert.deepEqual(listener.requests, [], 'nothing reached the other origin');
			}),
			10 * MINUTE,
		);

		it(
			'the trigger registers, runs once per ERP event, refuses replays, answers a forgery 401',
			track(async () => {
				const target: TriggerTarget = {
					webhookUrl: e2e.n8n!.url,
					hookId: HOOK_ID,
					workflowId: IDS.trigger,
					rest: e2e.rest,
				};
				await e2e.rest.activate(IDS.trigger);
				const secret = await registrationSecret(e2e.sandbox.url, target);
				await replayChecks(target, secret, 'trigger');
				await expectRuns(e2e.rest, IDS.trigger, 23);

				const forged = await deliver(
					target,
					sign(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`, 'evt_forged'),
				);
				assert.equal(forged.status, 401, forged.body);
				await expectRuns(e2e.rest, IDS.trigger, 23);

				// One event in the ERP: one delivery, one run.
				const event = await control(e2e.sandbox.url, 'events', {
					type: 'facture.payee',
					data: { facture_id: 'fac_compat', montant: 100 },
				});
				assert.ok(event.status < 300, event.text);
				await expectRuns(e2e.rest, IDS.trigger, 24);
			}),
			10 * MINUTE,
		);

		it(
			'OAuth2: a PKCE-connected credential with an expired access token, twice: two refreshes, both runs read the slips',
			track(async () => {
				const refreshes = async () =>
					(await sandboxRequests(e2e.sandbox.url)).filter(
						(r) => r.method === 'POST' && r.path === '/oauth/token' && r.status === 200,
					).length;
				const before = await refreshes();
				const expected = (await erp(e2e.sandbox, '/paie/bulletins?periode=2025-12&limit=100')).data;
				assert.equal(expected.length, 8);
				for (let run = 1; run <= 2; run++) {
					await new Promise((resolve) => setTimeout(resolve, 2500)); // the access token expires
					const result = await n8nExecute(e2e.config, IDS.payroll, log);
					const items = result.data.resultData.runData['ERP API Request'][0].data.main[0].map(
						(item: { json: unknown }) => item.json,
					);
					assert.deepEqual(items, expected);
					await expectCount('token grants since the first run', run, async () => ({
						count: (await refreshes()) - before,
					}));
				}
			}),
			10 * MINUTE,
		);

		const tlsHolds = atLeast(version, TLS_MINIMUM_FROM);
		it(
			tlsHolds
				? 'TLS 1.3 minimum: the TLS 1.3 server works, the TLS 1.2-only server is refused, once'
				: 'TLS 1.3 minimum not enforceable before n8n 2.20: the TLS 1.2-only server is accepted (as the table says)',
			track(async () => {
				const run = await n8nExecute(e2e.config, IDS.tls13, log);
				assert.equal(run.data.resultData.runData.ERP[0].data.main[0].length, 3);
				assert.deepEqual([...new Set(tls13.protocols)], ['TLSv1.3']);
				if (tlsHolds) {
					await assert.rejects(n8nExecute(e2e.config, IDS.tls12, log), (error: Error) => {
						assert.ok(
							error.message.includes(
								`The ERP server at ${tls12.origin} does not offer TLS 1.3, which the ERP API requires`,
							),
							error.message.slice(-2000),
						);
						return true;
					});
					assert.equal(tls12.connections, 1, 'one attempt, not retried');
					assert.deepEqual(tls12.protocols, [], 'no handshake completed');
				} else {
					const accepted = await n8nExecute(e2e.config, IDS.tls12, log);
					assert.equal(accepted.data.resultData.runData.ERP[0].data.main[0].length, 3);
					assert.deepEqual([...new Set(tls12.protocols)], ['TLSv1.2']);
				}
			}),
			10 * MINUTE,
		);
	},
);
