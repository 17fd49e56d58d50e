/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger heals itself and catches up what it missed, once, in real n8n 2.41.x: the
 * scenario of test/e2e/trigger-health.ts (registration deleted while n8n is stopped, and while it
 * runs; a restart repeats nothing; the control with catch-up off).
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
			folderPrefix: () => 'n8n-nodes-erp-e2e-restart-',
			log: () => e2eLog('e2e-trigger-restart'),
		});
	},
);
