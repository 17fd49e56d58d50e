/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger heals itself and catches up what it missed, once, in real n8n 2.41.x: the
 * control and part (a) of test/e2e/trigger-health.ts (the registrations deleted while n8n is
 * stopped; catch-up on, and the control with catch-up off). Parts (b) and (c) run beside it on an
 * n8n of their own (trigger-heal-running.test.ts): the whole scenario in one file was the longest
 * of `npm test`, its bound (602 to 651 s of 625 to 655).
 *
 * Owns its n8n: it stops and starts it.
 */
import { describe } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { skipE2e } from '../../scripts/n8n-instance';
import { e2eLog } from './helpers';
import { useSelfHealingScenario } from './trigger-health';

(skipE2e() ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the ERP Trigger heals itself and catches up once`,
	() => {
		useSelfHealingScenario({
			versions: [undefined],
			parts: ['stopped'],
			folderPrefix: () => 'n8n-nodes-erp-e2e-restart-',
			log: () => e2eLog('e2e-trigger-restart'),
		});
	},
);
