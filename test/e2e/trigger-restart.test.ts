/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * What the webhook ERP Trigger loses in real n8n 2.41.1 when the ERP cannot deliver, and what the
 * polling trigger, published next to it as a backstop, catches. Measured, not assumed:
 * - n8n unreachable for longer than the ERP retries (the sandbox's deliveries paused): the event
 *   is lost for the webhook workflow; the polling workflow posts it at its next scheduled poll;
 * - the registration deleted in the ERP while n8n was stopped: n8n 2.41 does not run the
 *   trigger's `checkExists` when it starts (it re-registers only pollers and other non-webhook
 *   triggers), so the next low-stock event starts nothing, and nothing says so; republishing the
 *   workflow registers it again, from then on. The polling workflow loses neither event.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import {
	EXAMPLE_IDS,
	SANDBOX_CREDENTIAL,
	startChatSink,
	wireExample,
	type ChatSink,
} from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { example, sinkReading } from './sinks';
import { chainWorkflow, e2eLog, erp, MINUTE, startE2e, waitFor, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e-trigger-restart');
const WEBHOOK_WORKFLOW = 'ErpLostRegistr01';
const HOOK_ID = '7d2e4f6a-1b3c-4d5e-8f70-a1b2c3d4e5f6';
/** A scheduled poll runs every minute: a crossing is posted within this time. */
const POLL_DEADLINE = { deadlineMs: 100_000, quietMs: 2_000 };

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: a lost webhook registration, and the polling trigger as a backstop`,
	() => {
		let e2e: E2e;
		let hooked: ChatSink;
		let polled: ChatSink;
		/** When each message arrived, and when each crossing was made: the latency, logged for the README. */
		const hookedAt: number[] = [];
		const polledAt: number[] = [];
		const madeAt: number[] = [];
		const files = keepFilesOnFailure(log);
		const polling = example(EXAMPLE_IDS.lowStockByPolling);

		beforeAll(async () => {
			[hooked, polled] = await Promise.all([
				startChatSink(0, () => hookedAt.push(Date.now())),
				startChatSink(0, () => polledAt.push(Date.now())),
			]);
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-restart-',
				log,
				files,
				// The ERP's 6 attempts in about 3 s instead of 31 s.
				sandbox: { webhookRetry: { baseMs: 100, maxAttempts: 6, timeoutMs: 5_000 } },
				workflows: () => [
					wireExample(polling, { chatUrl: polled.url }),
					chainWorkflow(WEBHOOK_WORKFLOW, 'E2E: low stock by webhook', [
						{
							name: 'ERP Trigger',
							type: 'n8n-nodes-erp.erpTrigger',
							webhookId: HOOK_ID,
							credentials: { erpApi: SANDBOX_CREDENTIAL },
							parameters: { registration: 'automatic', events: ['stock.bas'] },
						},
						{
							name: 'Post reference',
							type: 'n8n-nodes-base.httpRequest',
							typeVersion: 4.2,
							parameters: {
								method: 'POST',
								url: hooked.url,
								sendBody: true,
								specifyBody: 'keypair',
								bodyParameters: {
									parameters: [{ name: 'text', value: '={{ $json.data.reference }}' }],
								},
								options: {},
							},
						},
					]),
				],
			});
			await e2e.rest.activate(WEBHOOK_WORKFLOW);
			await e2e.rest.activate(EXAMPLE_IDS.lowStockByPolling);
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
			await Promise.all([hooked, polled].map(async (sink) => await sink?.close()));
		}, 10 * MINUTE);

		/** A real crossing: an article at 20 with seuil_alerte 10 brought to 5. Its reference. */
		const crossing = async (tag: string): Promise<string> => {
			const article = await erp(e2e.sandbox, '/articles', {
				method: 'POST',
				body: {
					reference: `LOST-${tag}-${Date.now()}`,
					designation: `Bol ${tag}`,
					prix_ht: 900,
					tva: 2000,
					stock: 20,
					seuil_alerte: 10,
				},
			});
			madeAt.push(Date.now());
			await erp(e2e.sandbox, `/articles/${article.id}`, { method: 'PATCH', body: { stock: 5 } });
			return article.reference as string;
		};
		const registrations = async () =>
			(await erp(e2e.sandbox, '/webhooks')).data.filter((w: { url: string }) =>
				w.url.includes(HOOK_ID),
			);
		const polledRefs = () => polled.messages.map((m) => /\(([^)]+)\)/.exec(m)?.[1]);

		it(
			'the control: with the registration in place, a crossing reaches both workflows once',
			files.track(async () => {
				const ref = await crossing('ok');
				await expectCount('webhook runs', 1, sinkReading(hooked));
				assert.deepEqual(hooked.messages, [ref]);
				await expectCount('polled alerts', 1, sinkReading(polled), POLL_DEADLINE);
				assert.deepEqual(polledRefs(), [ref]);
				log(
					`latency from the crossing: webhook ${hookedAt[0] - madeAt[0]} ms, polling (every minute) ${polledAt[0] - madeAt[0]} ms`,
				);
			}),
			5 * MINUTE,
		);

		it(
			'n8n unreachable for longer than the ERP retries: the webhook workflow loses the event, the polling one does not',
			files.track(async () => {
				await fetch(`${e2e.sandbox.url}/_sandbox/deliveries/pause`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ seconds: 600 }),
				});
				const ref = await crossing('down');
				await waitFor('the ERP giving up after 6 attempts', async () => {
					const { data } = (await (
						await fetch(`${e2e.sandbox.url}/_sandbox/deliveries`)
					).json()) as {
						data: Array<{ error: string | null }>;
					};
					return data.filter((d) => d.error === 'paused').length === 6 || undefined;
				});
				await fetch(`${e2e.sandbox.url}/_sandbox/deliveries/resume`, { method: 'POST' });
				await expectCount('polled alerts', 2, sinkReading(polled), POLL_DEADLINE);
				assert.deepEqual(polledRefs().slice(1), [ref]);
				await expectCount('webhook runs (the event is lost)', 1, sinkReading(hooked), {
					quietMs: 2_000,
				});
			}),
			5 * MINUTE,
		);

		it(
			'registration deleted while n8n was stopped: nothing runs after the restart until the workflow is republished; polling loses nothing',
			files.track(async () => {
				const [registration] = await registrations();
				log('stopping n8n and deleting the registration in the ERP');
				await e2e.n8n!.stop();
				await erp(e2e.sandbox, `/webhooks/${registration.id}`, { method: 'DELETE' });
				await e2e.start();
				assert.deepEqual(await registrations(), [], 'n8n did not register it again at start');

				const lost = await crossing('lost');
				await expectCount('polled alerts', 3, sinkReading(polled), POLL_DEADLINE);
				assert.deepEqual(polledRefs().slice(2), [lost]);
				await expectCount('webhook runs after the restart (none new)', 1, sinkReading(hooked), {
					quietMs: 3_000,
				});

				log('republishing the webhook workflow');
				await e2e.rest.deactivate(WEBHOOK_WORKFLOW);
				await e2e.rest.activate(WEBHOOK_WORKFLOW);
				// Republishing registers it again, once.
				await expectCount('registrations after republishing', 1, async () => ({
					count: (await registrations()).length,
				}));
				const after = await crossing('after');
				await expectCount('webhook runs after republishing', 2, sinkReading(hooked));
				assert.deepEqual(hooked.messages.slice(1), [after], 'only the event after republishing');
				await expectCount('polled alerts', 4, sinkReading(polled), POLL_DEADLINE);
				assert.deepEqual(polledRefs().slice(3), [after]);
				log(
					`polling latency of each crossing (ms): ${polledAt.map((t, i) => t - madeAt[i]).join(', ')}`,
				);
			}),
			8 * MINUTE,
		);
	},
);
