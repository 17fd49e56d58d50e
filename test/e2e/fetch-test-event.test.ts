/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Polling Trigger's Fetch Test Event in real n8n (issue 40, item 4), as the editor's
 * button runs it (`POST /rest/workflows/:id/run` with the trigger as the trigger to start from and
 * the destination): over an empty list, the run fails with an error that says the list is empty,
 * not an empty output; once the ERP lists an article, the same button shows it. On the run's
 * shared n8n, its own sandbox with no article.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { UNPACED } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectRuns } from './count';
import { chainWorkflow, e2eLog, erp, MINUTE, startE2e, type ApiJson, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e fetch test event');

const WORKFLOW_ID = 'ErpE2eFetchTest1';
const TRIGGER = 'New Article';

(SKIP ? describe.skip : describe)(
	`the ERP Polling Trigger's Fetch Test Event in real n8n ${N8N_VERSION}`,
	() => {
		let e2e: E2e;
		const files = keepFilesOnFailure(log);

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-fetch-',
				log,
				files,
				shared: true,
				sandbox: { rateLimit: UNPACED, articles: 0 },
				workflows: () => [
					chainWorkflow(WORKFLOW_ID, 'E2E: Fetch Test Event', [
						{
							name: TRIGGER,
							type: 'n8n-nodes-erp.erpPollingTrigger',
							credentials: { erpApi: SANDBOX_CREDENTIAL },
							parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, watch: 'article' },
						},
						{ name: 'No Operation', type: 'n8n-nodes-base.noOp', parameters: {} },
					]),
				],
			});
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
		}, 10 * MINUTE);

		/** The editor's Fetch Test Event; the `n`-th run of the workflow, as n8n recorded it. */
		async function fetchTestEvent(n: number): Promise<{ status: string; data: ApiJson }> {
			await e2e.rest.request('POST', `/rest/workflows/${WORKFLOW_ID}/run`, {
				triggerToStartFrom: { name: TRIGGER },
				destinationNode: { nodeName: TRIGGER, mode: 'inclusive' },
			});
			const runs = await expectRuns(e2e.rest, WORKFLOW_ID, n, { quietMs: 500 });
			const run = runs.find((r) => r.status !== 'running') ?? runs[0];
			return { status: run.status, data: await e2e.rest.executionData(run.id) };
		}

		it(
			'over an empty list, says the list is empty; once the ERP lists an article, shows it',
			files.track(async () => {
				const empty = await fetchTestEvent(1);
				const error = empty.data.resultData.error;
				log(`empty list: ${empty.status}, ${error?.message} | ${error?.description}`);
				assert.equal(empty.status, 'error');
				assert.match(String(error?.message), /^No New Article item to show yet$/);
				assert.match(String(error?.description), /^The ERP's list \/articles is empty\./);

				// Control: the same button shows the first article once there is one.
				const article = await erp(e2e.sandbox, '/articles', {
					method: 'POST',
					body: { reference: 'FETCH-1', designation: 'Fetched mug', prix_ht: 900, tva: 2000 },
				});
				const shown = await fetchTestEvent(2);
				assert.equal(shown.status, 'success');
				const output = shown.data.resultData.runData[TRIGGER][0].data.main[0].map(
					(item: { json: ApiJson }) => item.json,
				);
				log(`with an article: ${JSON.stringify(output)}`);
				assert.equal(output.length, 1);
				assert.equal(output[0].data.id, article.id);
			}),
			20 * MINUTE,
		);
	},
);
