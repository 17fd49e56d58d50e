/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Polling Trigger in real n8n 2.41 with durable poll cursors on (the four flags of
 * DURABLE_CURSOR_FLAGS; n8n says the durable scheduler becomes the default in a later 2.x): the
 * catch-up scenario of test/e2e/polling-scenario.ts (25 movements and 3 low-stock crossings made
 * while n8n is stopped run exactly once, in order; a restart repeats nothing), its control (a
 * cleared position repeats), the forgotten start (a watch from now whose start n8n did not keep
 * skips the 25: what every watch from now did before the start commit in
 * nodes/ErpPollingTrigger/poll.ts),
 * then unpublished and published again (it goes on from its position).
 */
import { describe } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import { e2eLog } from './helpers';
import { usePollingScenario } from './polling-scenario';

(skipE2e() ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}, durable poll cursors: the ERP Polling Trigger`,
	() => {
		usePollingScenario({
			folderPrefix: 'n8n-nodes-erp-e2e-polling-durable-',
			log: e2eLog('e2e-polling-durable'),
			durableCursors: true,
			republish: true,
		});
	},
);
