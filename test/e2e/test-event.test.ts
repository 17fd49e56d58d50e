/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger's *Listen for test event* in real n8n (issue 40, item 4), driven as the editor
 * drives it: `POST /rest/workflows/:id/run` with the trigger as the trigger to start from (n8n
 * 2.x's WorkflowExecutionService.executeManually, then TestWebhooks.needsWebhook) answers
 * `{ waitingForWebhook: true }` once the node registered its **test** URL
 * (`/webhook-test/<webhookId>/erp`) with the ERP. The sandbox's event then reaches that URL, the
 * manual execution's output is that event, and n8n removes the registration after the run.
 * Controls: an event the ERP emits before listening is delivered nowhere and starts nothing; after
 * the run, another event is delivered nowhere, the test URL answers 404 and the run count stays 1.
 * On the run's shared n8n (test/e2e/shared-n8n.ts).
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { control } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectCount, expectRuns } from './count';
import { e2eLog, erp, MINUTE, startE2e, waitFor, type ApiJson, type E2e } from './helpers';
import { triggerWorkflow } from './trigger-replay';

const SKIP = skipE2e();
const log = e2eLog('e2e test event');

const WORKFLOW_ID = 'ErpE2eTestEvent1';
const HOOK_ID = 'f3c1d7a2-40e4-4b8e-9c1a-7d2e5b6a9c40';
const TRIGGER = 'ERP Trigger';

(SKIP ? describe.skip : describe)(
	`the ERP Trigger's Listen for test event in real n8n ${N8N_VERSION}`,
	() => {
		let e2e: E2e;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-test-event-',
				log,
				files,
				shared: true,
				workflows: () => [triggerWorkflow(WORKFLOW_ID, HOOK_ID, 'automatic', SANDBOX_CREDENTIAL)],
			});
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
		}, 80 * MINUTE);

		const testUrl = () => `${e2e.n8n!.url}/webhook-test/${HOOK_ID}/erp`;
		/** The ERP's registrations of this trigger's URLs (test or production). */
		const registrations = async (): Promise<ApiJson[]> =>
			((await erp(e2e.sandbox, '/webhooks?limit=100')).data as ApiJson[]).filter((w) =>
				String(w.url).includes(HOOK_ID),
			);
		const deliveries = async (): Promise<ApiJson[]> =>
			(await control(e2e.sandbox.url, 'deliveries')).json.data;
		/** A stock.bas event for a known article, as the ERP emits it; its id. */
		const emit = async (): Promise<string> => {
			const answer = await control(e2e.sandbox.url, 'events', {
				type: 'stock.bas',
				data: { article_id: 'art_00000001' },
			});
			assert.equal(answer.status, 200, JSON.stringify(answer.json));
			return String(answer.json.id);
		};

		it(
			'the editor’s Listen for test event registers the test URL, shows the sandbox’s event as the run’s output, then removes the registration (controls: no delivery without it)',
			track(async () => {
				// Control: not listening, the ERP holds no registration, so an event reaches nobody.
				assert.deepEqual(await registrations(), []);
				const unseen = await emit();
				await expectCount('deliveries while not listening', 0, async () => ({
					count: (await deliveries()).length,
				}));
				await expectRuns(e2e.rest, WORKFLOW_ID, 0);

				// The editor's button: a full manual run from the trigger, waiting for its webhook.
				const answer = await e2e.rest.request<ApiJson>(
					'POST',
					`/rest/workflows/${WORKFLOW_ID}/run`,
					{
						triggerToStartFrom: { name: TRIGGER },
						destinationNode: { nodeName: TRIGGER, mode: 'inclusive' },
					},
				);
				assert.deepEqual(answer, { waitingForWebhook: true });
				const [registration] = await registrations();
				assert.equal(registration?.url, testUrl(), JSON.stringify(registration));
				assert.equal(registration.status, 'active', JSON.stringify(registration));

				const shown = await emit();
				const [run] = await expectRuns(e2e.rest, WORKFLOW_ID, 1);
				assert.equal(run.mode, 'manual', JSON.stringify(run));
				assert.equal(run.status, 'success', JSON.stringify(run));
				const data = await e2e.rest.executionData(run.id);
				const output = data.resultData.runData[TRIGGER][0].data.main[0].map(
					(item: { json: ApiJson }) => item.json,
				);
				log(`the test run's output: ${JSON.stringify(output)}`);
				assert.equal(output.length, 1, JSON.stringify(output));
				assert.equal(output[0].id, shown, 'the event emitted while listening');
				assert.notEqual(output[0].id, unseen);
				assert.equal(output[0].type, 'stock.bas');
				assert.equal(output[0].data.reference, 'REF-000001', JSON.stringify(output[0]));
				assert.equal(
					data.resultData.runData['No Operation'],
					undefined,
					'the run stops at the trigger, the destination the editor gives',
				);
				const sent = await deliveries();
				assert.deepEqual(
					sent.map((d) => [d.event_id, d.status]),
					[[shown, 200]],
					'one delivery, to the test URL, accepted',
				);

				// n8n removes the test registration after the run: the ERP forgets the test URL.
				await waitFor('the test registration removed', async () =>
					(await registrations()).length === 0 ? true : undefined,
				);
				// Control: the next event is delivered nowhere, starts nothing, the URL is gone.
				await emit();
				await expectCount('deliveries after the test run', 1, async () => ({
					count: (await deliveries()).length,
				}));
				await expectRuns(e2e.rest, WORKFLOW_ID, 1);
				const late = await fetch(testUrl(), { method: 'POST', body: '{}' });
				assert.equal(late.status, 404, 'n8n no longer listens on the test URL');
			}),
			20 * MINUTE,
		);
	},
);
