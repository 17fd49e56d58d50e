/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Polling Trigger in real n8n (the default version): the catch-up across restarts of
 * test/e2e/polling-scenario.ts (25 movements and 3 low-stock crossings made while n8n is stopped
 * run exactly once; a restart repeats nothing; the control with its position cleared repeats).
 * test/compat/polling.compat.ts runs the same scenario on the older supported n8n versions.
 */
import { describe } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import { e2eLog } from './helpers';
import { usePollingScenario } from './polling-scenario';

(skipE2e() ? describe.skip : describe)(`real n8n ${N8N_VERSION}: the ERP Polling Trigger`, () => {
	usePollingScenario({ folderPrefix: 'n8n-nodes-erp-e2e-polling-', log: e2eLog('e2e-polling') });
});
