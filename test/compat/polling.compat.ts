/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:compat`: the ERP Polling Trigger across restarts (the README's Compatibility
 * table) in each real n8n of VERSIONS, one n8n per version: its catch-up, the scenario of
 * test/e2e/polling-scenario.ts that test/e2e/polling.test.ts runs on the default n8n. What it
 * relies on, read in each version's source (README, *Webhook or polling?*): a poll runs at
 * activation and at every start, and the static data is saved after it and when a poll emits.
 * The ERP Trigger across restarts: trigger-health.compat.ts.
 */
import { describe } from '@jest/globals';

import { skipE2e } from '../../scripts/n8n-instance';
import { usePollingScenario } from '../e2e/polling-scenario';
import { e2eLog } from '../e2e/helpers';
import { VERSIONS } from './versions';

(skipE2e() ? describe.skip : describe).each(VERSIONS)(
	'real n8n %s: the ERP triggers across restarts',
	(version) => {
		const log = e2eLog(`compat restarts ${version}`);
		usePollingScenario({
			version,
			folderPrefix: `n8n-nodes-erp-compat-restarts-${version}-`,
			log,
		});
	},
);
