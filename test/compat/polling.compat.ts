/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:compat`: the triggers across restarts (the README's Compatibility table) in each
 * real n8n of VERSIONS, one n8n per version:
 * - the ERP Polling Trigger's catch-up, the scenario of test/e2e/polling-scenario.ts that
 *   test/e2e/polling.test.ts runs on the default n8n. What it relies on, read in each version's
 *   source (README, *Webhook or polling?*): a poll runs at activation and at every start, and the
 *   static data is saved after it and when a poll emits;
 * - the ERP Trigger's registration deleted in the ERP while n8n was stopped: these versions
 *   activate at start without the workflow publication service (absent in 1.x, off by default in
 *   2.33), which stores the webhook and runs `checkExists`, so the trigger registers again and the
 *   next event runs once. The counter-example is 2.41.1 (test/e2e/trigger-restart.test.ts), where
 *   the same steps leave it lost.
 */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import { control } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { skipE2e } from '../../scripts/n8n-instance';
import { expectCount, expectRuns } from '../e2e/count';
import { usePollingScenario } from '../e2e/polling-scenario';
import { e2eLog, erp, MINUTE } from '../e2e/helpers';
import { triggerWorkflow } from '../e2e/trigger-replay';
import { VERSIONS } from './versions';

const TRIGGER = 'ErpCompatRestart';
const HOOK_ID = '3c8e1f4a-6b2d-4e9f-a017-5d6c7b8a9e26';

(skipE2e() ? describe.skip : describe).each(VERSIONS)(
	'real n8n %s: the ERP triggers across restarts',
	(version) => {
		const log = e2eLog(`compat restarts ${version}`);
		const { files, e2e: running } = usePollingScenario({
			version,
			folderPrefix: `n8n-nodes-erp-compat-restarts-${version}-`,
			log,
			workflows: [triggerWorkflow(TRIGGER, HOOK_ID, 'automatic', SANDBOX_CREDENTIAL)],
		});

		it(
			'the ERP Trigger: a registration deleted in the ERP while n8n was stopped is registered again at start; the next event runs once',
			files.track(async () => {
				const e2e = running();
				const registrations = async (): Promise<Array<{ id: string }>> =>
					(await erp(e2e.sandbox, '/webhooks')).data.filter((w: { url: string }) =>
						w.url.includes(HOOK_ID),
					);
				await e2e.rest.activate(TRIGGER);
				const [before, ...others] = await registrations();
				assert.ok(before, 'publishing registered the trigger');
				assert.deepEqual(others, []);

				log('stopping n8n and deleting the registration in the ERP');
				await e2e.n8n!.stop();
				await erp(e2e.sandbox, `/webhooks/${before.id}`, { method: 'DELETE' });
				assert.deepEqual(await registrations(), [], 'the registration is gone');
				await e2e.start();
				// Read every 2 s: the reads share the demo key's 100 requests a minute with the polls.
				await expectCount(
					'registrations after the start',
					1,
					async () => ({ count: (await registrations()).length }),
					{ pollMs: 2_000 },
				);
				const [after] = await registrations();
				assert.notEqual(after.id, before.id, 'a new registration, made at start');

				const event = await control(e2e.sandbox.url, 'events', {
					type: 'facture.payee',
					data: { facture_id: 'fac_compat_restart', montant: 100 },
				});
				assert.ok(event.status < 300, event.text);
				await expectRuns(e2e.rest, TRIGGER, 1);
			}),
			10 * MINUTE,
		);
	},
);
