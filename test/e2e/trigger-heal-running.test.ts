/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger heals itself and catches up what it missed, once, in real n8n 2.41.x: the
 * control and parts (b) and (c) of test/e2e/trigger-health.ts (the registrations deleted while
 * n8n runs, restored by the scheduled check; then a restart repeats nothing; catch-up on, and the
 * control with catch-up off). Part (a) runs beside it on an n8n of its own
 * (trigger-restart.test.ts).
 *
 * Owns its n8n: it stops and starts it.
 */
import { describe } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import { e2eLog } from './helpers';
import { useSelfHealingScenario } from './trigger-health';

(skipE2e() ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the ERP Trigger heals itself while it runs, and a restart repeats nothing`,
	() => {
		useSelfHealingScenario({
			versions: [undefined],
			parts: ['running'],
			folderPrefix: () => 'n8n-nodes-erp-e2e-heal-running-',
			log: () => e2eLog('e2e-trigger-heal-running'),
		});
	},
);
