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
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_KEYS, UNPACED } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import type { SignedDelivery } from '../trigger/helpers';
import { expectRuns, readRuns, stableRunCount } from './count';
import { e2eLog, MINUTE, sandboxCredential, startE2e, waitFor, type E2e } from './helpers';
import { callHttp, httpWorkflow, ORIGIN_REFUSAL, startListener, type Listener } from './key-origin';
import {
	deliver,
	registrationSecret,
	rawBodyChecks,
	replayChecks,
	sign,
	started,
	triggerWorkflow,
	type TriggerTarget,
} from './trigger-replay';

const SKIP = skipE2e();
const log = e2eLog('e2e security');

const IDS = {
	http: 'ErpSecHttp000001',
	httpPaginated: 'ErpSecHttp000002',
	httpNextPage: 'ErpSecHttp000003',
	httpControl: 'ErpSecHttp000004',
	triggerAuto: 'ErpSecTrigAuto01',
	triggerManual: 'ErpSecTrigManu01',
	triggerBytes: 'ErpSecTrigByte01',
};
const MANUAL_CREDENTIAL = { id: 'ErpSecManual0001', name: 'ERP sandbox (manual secret)' };
const MANUAL_SECRET = `whsec_${Buffer.from('e2e-manual-registration-secret-32b').toString('base64')}`;
const HOOK_IDS = {
	auto: '5b0f9b5e-7c57-4c8e-9d36-0b8f7a1e2c01',
	manual: '5b0f9b5e-7c57-4c8e-9d36-0b8f7a1e2c02',
	bytes: '5b0f9b5e-7c57-4c8e-9d36-0b8f7a1e2c03',
};
type TriggerKind = keyof typeof HOOK_IDS;
const TRIGGER_IDS: Record<TriggerKind, string> = {
	auto: IDS.triggerAuto,
	manual: IDS.triggerManual,
	bytes: IDS.triggerBytes,
};

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the key's origin and replay protection`,
	() => {
		let e2e: E2e;
		let listener: Listener;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			listener = await startListener();
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
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-security-',
				log,
				files,
				sandbox: { rateLimit: UNPACED },
				workflows: () => [
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
					// Manual at 1.1 (a new node), automatic at 1 (workflows made before 1.1).
					triggerWorkflow(IDS.triggerManual, HOOK_IDS.manual, 'manual', MANUAL_CREDENTIAL, {}, 1.1),
					triggerWorkflow(IDS.triggerBytes, HOOK_IDS.bytes, 'manual', MANUAL_CREDENTIAL, {}, 1.1),
				],
				credentials: async ({ sandbox }) => [
					sandboxCredential(MANUAL_CREDENTIAL, sandbox, { webhookSecret: MANUAL_SECRET }),
				],
			});
			for (const id of [IDS.http, IDS.httpPaginated, IDS.httpNextPage, IDS.httpControl])
				await e2e.rest.activate(id);
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
			await listener?.close();
		}, 80 * MINUTE);

		const call = (webhookPath: string, url: string) => callHttp(e2e.n8n!.url, webhookPath, url);

		it(
			"the HTTP Request node with the ERP API credential reaches the credential's own Base URL",
			track(async () => {
				const answer = await call('sec-http', `${e2e.sandbox.baseUrl}/articles?limit=1`);
				assert.equal(answer.error, undefined, JSON.stringify(answer));
				assert.equal(answer.data.length, 1);
				assert.match(answer.data[0].id, /^art_/);
				const paged = await call('sec-http-paginated', `${e2e.sandbox.baseUrl}/clients?limit=2`);
				assert.equal(paged.error, undefined, JSON.stringify(paged));
			}),
			80 * MINUTE,
		);

		it(
			'the HTTP Request node cannot carry the key to another origin, paginated or not; the listener receives no Authorization header',
			track(async () => {
				const control = await call('sec-http-control', `${listener.url}/v1/control`);
				assert.equal(control.error, undefined, JSON.stringify(control));
				assert.deepEqual(
					listener.requests.map((r) => r.authorization),
					['Bearer e2e-control-marker'],
					'control: the listener records the Authorization header it receives',
				);
				listener.requests.length = 0;

				const plain = await call('sec-http', `${listener.url}/steal`);
				assert.match(JSON.stringify(plain.error), ORIGIN_REFUSAL);
				const paginated = await call('sec-http-paginated', `${listener.url}/steal`);
				assert.match(JSON.stringify(paginated.error), ORIGIN_REFUSAL);
				const nextPage = await call(
					'sec-http-next-page',
					`${e2e.sandbox.baseUrl}/articles?limit=1`,
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

		const target = (kind: TriggerKind): TriggerTarget => ({
			webhookUrl: e2e.n8n!.url,
			hookId: HOOK_IDS[kind],
			workflowId: TRIGGER_IDS[kind],
			rest: e2e.rest,
		});
		/**
		 * Publishes the trigger's workflow and finds the secret its deliveries are signed with
		 * (Automatic: the one the trigger registered with the ERP; Manual: the credential's). Each
		 * test that needs it calls it, so that none depends on another's success; done once.
		 */
		const published: Partial<Record<TriggerKind, Promise<string>>> = {};
		const publishedTrigger = async (kind: TriggerKind): Promise<string> => {
			published[kind] ??= (async () => {
				await e2e.rest.activate(target(kind).workflowId);
				return kind === 'auto'
					? await registrationSecret(e2e.sandbox.url, target(kind))
					: MANUAL_SECRET;
			})().catch((error: unknown) => {
				published[kind] = undefined; // the next test tries again
				throw error;
			});
			return await published[kind];
		};

		for (const [kind, label] of [
			['auto', 'Automatic'],
			['manual', 'Manual'],
		] as const) {
			it(
				`${label} registration: a replayed delivery never starts a second run, one by one or ten at once`,
				track(async () => {
					await replayChecks(target(kind), await publishedTrigger(kind), 'trigger');
				}),
				80 * MINUTE,
			);
		}

		it(
			'Manual registration at 1.1: a delivery n8n does not parse (application/octet-stream) is checked on its raw body',
			track(async () => {
				await rawBodyChecks(target('bytes'), await publishedTrigger('bytes'));
			}),
			10 * MINUTE,
		);

		it(
			'control: the counter fails on a run that n8n records after the count was reached, and on one that never comes',
			track(async () => {
				const secret = await publishedTrigger('manual');
				const workflowId = target('manual').workflowId;
				const before = await stableRunCount(e2e.rest, workflowId);
				assert.ok(started(await deliver(target('manual'), sign(secret, 'evt_count_on_time'))));
				// A second run that starts 1.5 s after the count of one was reached, inside the quiet period.
				// Reached as read from n8n, not timed from the first answer: n8n records a run after it
				// answers, and once recorded it 1.5 s later, so that the late one came first (a full run).
				const late = (async () => {
					await waitFor('the first run recorded', async () => {
						const { count, settled } = await readRuns(e2e.rest, workflowId);
						return count === before + 1 && settled ? true : undefined;
					});
					await new Promise((resolve) => setTimeout(resolve, 1_500));
					return await deliver(target('manual'), sign(secret, 'evt_count_late'));
				})();
				await assert.rejects(
					expectRuns(e2e.rest, workflowId, before + 1),
					/Counted \d+ executions of workflow \w+ during the 4 s quiet period, expected exactly \d+/,
				);
				assert.ok(started(await late));
				await expectRuns(e2e.rest, workflowId, before + 2);
				// One more run is expected than will ever come: the deadline names what was awaited.
				await assert.rejects(
					expectRuns(e2e.rest, workflowId, before + 3, { deadlineMs: 5_000 }),
					new RegExp(
						`Timed out after 5 s waiting for executions of workflow ${workflowId}: counted ${before + 2} of ${before + 3}`,
					),
				);
			}),
			10 * MINUTE,
		);

		it(
			'after an n8n restart, a replay inside the tolerance window starts no run; new deliveries still do',
			track(async () => {
				const kinds = ['auto', 'manual'] as const;
				const secrets = { auto: '', manual: '' };
				const before = { auto: 0, manual: 0 };
				const captured: Partial<Record<'auto' | 'manual', SignedDelivery>> = {};
				for (const kind of kinds) {
					secrets[kind] = await publishedTrigger(kind);
					// Whatever the tests before left: the count once it is settled.
					before[kind] = await stableRunCount(e2e.rest, target(kind).workflowId);
					captured[kind] = sign(secrets[kind], `evt_restart_${kind}`);
					assert.ok(started(await deliver(target(kind), captured[kind])));
					await expectRuns(e2e.rest, target(kind).workflowId, before[kind] + 1);
				}
				log('restarting n8n');
				await e2e.n8n!.stop();
				await e2e.start();
				// n8n takes the published workflows' webhooks back up at start-up.
				for (const kind of kinds) {
					const replay = await deliver(target(kind), captured[kind]!);
					assert.equal(replay.status, 409, replay.body);
					assert.match(replay.body, /signed_before_restart/);
				}
				// Control: the triggers work after the restart, and the counters move.
				for (const kind of kinds) {
					assert.ok(started(await deliver(target(kind), sign(secrets[kind], `evt_after_${kind}`))));
				}
				for (const kind of kinds) {
					await expectRuns(e2e.rest, target(kind).workflowId, before[kind] + 2);
				}
			}),
			80 * MINUTE,
		);
	},
);
