/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Custom API Conventions in real n8n 2.41.1 (issue 25), the packed package installed as a
 * community package, against a sandbox that names its cursor `starting_after` and its page size
 * `per_page`, and signs its webhooks with an HMAC of the body in `X-Signature: sha256=<hex>`:
 * - Return All through a published workflow reads all 450 articles with a credential that names
 *   them so; control: the same workflow on the default credential fails (the server ignores
 *   `cursor` and answers the first page again);
 * - an ERP Trigger registered with that credential runs once for a real delivery, a tampered copy
 *   is refused with 401, and the same delivery again starts no second run; control: a trigger on
 *   the default credential, registered with the same server, refuses the same delivery with 401.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { sandboxRequests, signBodyHmac, UNPACED } from '../../sandbox';
import type { SandboxConventions } from '../../sandbox';
import { SANDBOX_CREDENTIAL, type Workflow } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectCount, expectRuns } from './count';
import {
	e2eLog,
	erp,
	listAllWorkflow,
	MINUTE,
	sandboxCredential,
	startE2e,
	type E2e,
} from './helpers';
import { triggerWorkflow, type TriggerTarget, deliver, registrationSecret } from './trigger-replay';

const SKIP = skipE2e();
const log = e2eLog('conventions');

const ARTICLES = 450;
const VARIANT: Partial<SandboxConventions> = {
	cursorParam: 'starting_after',
	pageSizeParam: 'per_page',
	signature: 'hmac-hex',
	signatureHeader: 'X-Signature',
	signaturePrefix: 'sha256=',
};
const CUSTOM_CREDENTIAL = { id: 'ErpConventions01', name: 'ERP (starting_after, HMAC)' };
const IDS = {
	listCustom: 'ErpE2eConvList01',
	listDefault: 'ErpE2eConvList02',
	triggerCustom: 'ErpE2eConvTrig01',
	triggerDefault: 'ErpE2eConvTrig02',
};
const HOOK_IDS = {
	custom: '6c1f2a8e-0d4b-4e57-9a13-3f2b7d9c5e01',
	control: '6c1f2a8e-0d4b-4e57-9a13-3f2b7d9c5e02',
};
const LIST_HOOK_IDS = {
	custom: '6c1f2a8e-0d4b-4e57-9a13-3f2b7d9c5e11',
	control: '6c1f2a8e-0d4b-4e57-9a13-3f2b7d9c5e12',
};

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: an ERP with other list names and body HMAC signatures`,
	() => {
		let e2e: E2e;
		const files = keepFilesOnFailure(log);
		const track = files.track;
		const target = (kind: 'custom' | 'control'): TriggerTarget => ({
			webhookUrl: e2e.n8n!.url,
			hookId: HOOK_IDS[kind],
			workflowId: kind === 'custom' ? IDS.triggerCustom : IDS.triggerDefault,
			rest: e2e.rest,
		});

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-conv-',
				shared: true,
				log,
				files,
				sandbox: {
					articles: ARTICLES,
					rateLimit: UNPACED,
					conventions: VARIANT,
					webhookRetry: { baseMs: 200, maxAttempts: 2, timeoutMs: 10_000 },
				},
				workflows: (): Workflow[] => [
					listAllWorkflow(IDS.listCustom, 'E2E: list every article (starting_after)', {
						webhookId: LIST_HOOK_IDS.custom,
						path: 'erp-e2e-conv-custom',
						credential: CUSTOM_CREDENTIAL,
					}),
					listAllWorkflow(IDS.listDefault, 'E2E: list every article (defaults)', {
						webhookId: LIST_HOOK_IDS.control,
						path: 'erp-e2e-conv-default',
						credential: SANDBOX_CREDENTIAL,
					}),
					{
						...triggerWorkflow(IDS.triggerCustom, HOOK_IDS.custom, 'automatic', CUSTOM_CREDENTIAL),
						name: 'E2E: trigger (HMAC)',
					},
					// The control refuses the ERP's HMAC-signed deliveries; with catch-up on it would run
					// the refused events from the lists a minute later (as it should): off, so that it
					// shows only what its signature check lets through.
					triggerWorkflow(IDS.triggerDefault, HOOK_IDS.control, 'automatic', SANDBOX_CREDENTIAL, {
						catchUp: false,
					}),
				],
				credentials: async ({ sandbox }) => [
					sandboxCredential(CUSTOM_CREDENTIAL, sandbox, {
						customConventions: true,
						cursorParam: 'starting_after',
						pageSizeParam: 'per_page',
						signatureScheme: 'bodyHmac',
						signatureHeader: 'X-Signature',
						signaturePrefix: 'sha256=',
					}),
				],
			});
			for (const id of Object.values(IDS)) await e2e.rest.activate(id);
		}, 55 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
		}, 10 * MINUTE);

		const callList = async (path: string) => {
			const response = await fetch(`${e2e.n8n!.url}/webhook/${path}`, {
				signal: AbortSignal.timeout(120_000),
			});
			return { status: response.status, text: await response.text() };
		};

		it(
			'Return All reads every article once with starting_after and per_page',
			track(async () => {
				const before = (await sandboxRequests(e2e.sandbox.url)).length;
				const answer = await callList('erp-e2e-conv-custom');
				assert.equal(answer.status, 200, answer.text);
				const ids = (JSON.parse(answer.text) as Array<{ id: string }>).map((a) => a.id);
				assert.equal(ids.length, ARTICLES);
				assert.equal(new Set(ids).size, ARTICLES, 'no article twice');
				const queries =
					(await expectCount('list requests of the execution', 5, async () => {
						const sent = (await sandboxRequests(e2e.sandbox.url))
							.slice(before)
							.filter((e) => e.path === '/v1/articles')
							.map((e) => e.query);
						return { count: sent.length, detail: sent };
					})) ?? [];
				assert.deepEqual(queries[0], { per_page: '100' });
				assert.ok(queries.slice(1).every((q) => q.per_page === '100' && q.starting_after));
			}),
			10 * MINUTE,
		);

		it(
			'control: the same workflow on the default credential fails against that server',
			track(async () => {
				const answer = await callList('erp-e2e-conv-default');
				assert.notEqual(answer.status, 200, answer.text);
				const runs = await expectRuns(e2e.rest, IDS.listDefault, 1);
				assert.equal(runs[0].status, 'error', JSON.stringify(runs));
			}),
			10 * MINUTE,
		);

		it(
			'an HMAC-signed delivery starts one run, a tampered copy gets 401, the same again no second run; control on defaults: 401',
			track(async () => {
				const emitted = await fetch(`${e2e.sandbox.url}/_sandbox/events`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ type: 'stock.bas', data: { article_id: 'art_00000001' } }),
				});
				assert.equal(emitted.status, 200);
				await expectRuns(e2e.rest, IDS.triggerCustom, 1);
				// Control: the default credential's trigger got the same delivery, twice, and refused it.
				const hooks = (await erp(e2e.sandbox, '/webhooks?limit=100')).data as Array<{
					id: string;
					url: string;
				}>;
				const controlHook = hooks.find((h) => h.url.includes(HOOK_IDS.control));
				assert.ok(controlHook, 'the control trigger registered its URL');
				const attempts = await expectCount(
					'delivery attempts to the control trigger',
					2,
					async () => {
						const answer = await fetch(
							`${e2e.sandbox.url}/_sandbox/deliveries?webhook_id=${controlHook.id}`,
						);
						const data = ((await answer.json()) as { data: Array<{ status: number }> }).data;
						return { count: data.length, detail: data };
					},
				);
				assert.deepEqual(
					attempts?.map((a) => a.status),
					[401, 401],
				);
				await expectRuns(e2e.rest, IDS.triggerDefault, 0);

				// Crafted, signed with the registration's secret as the ERP signs.
				const secret = await registrationSecret(e2e.sandbox.url, target('custom'));
				const body = JSON.stringify({
					id: 'evt_e2e_hmac_1',
					type: 'facture.payee',
					data: { facture_id: 'fac_e2e', montant: 1200 },
				});
				const signed = (text: string) => ({
					headers: {
						'content-type': 'application/json',
						'x-signature': signBodyHmac(secret, text, {
							...(VARIANT as SandboxConventions),
							signatureAlgorithm: 'sha256',
						}),
					},
					body: text,
				});
				const delivery = signed(body);
				const tampered = { ...delivery, body: body.replace('1200', '9200') };
				const refused = await deliver(target('custom'), tampered);
				assert.equal(refused.status, 401, refused.body);
				assert.equal(JSON.parse(refused.body).reason, 'no_matching_signature');
				await expectRuns(e2e.rest, IDS.triggerCustom, 1);

				const accepted = await deliver(target('custom'), delivery);
				assert.deepEqual(accepted, { status: 200, body: '' });
				const again = await deliver(target('custom'), delivery);
				assert.deepEqual(again, {
					status: 200,
					body: '{"received":true,"ignored":"duplicate"}',
				});
				await expectRuns(e2e.rest, IDS.triggerCustom, 2);
				// Control: the default trigger refuses the same valid bytes.
				assert.equal((await deliver(target('control'), delivery)).status, 401);
				await expectRuns(e2e.rest, IDS.triggerDefault, 0);
			}),
			10 * MINUTE,
		);
	},
);
