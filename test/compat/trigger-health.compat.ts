/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:compat`: the ERP Trigger heals itself and catches up what it missed, once, in
 * each real n8n of VERSIONS (1.123.81 and 2.33.7 by default), side by side (one n8n each, the
 * same steps at the same time, to keep the suite's time): the scenario of
 * test/e2e/trigger-health.ts, whole (2.41.x runs it in two parts, trigger-restart.test.ts and
 * trigger-heal-running.test.ts). The
 * registration deleted while n8n is stopped (these versions run `checkExists` at start; the
 * node's `trigger()` runs after it), and deleted while n8n runs (restored by the scheduled check:
 * `registerCron`, in every version); the missed crossings caught up at the checks; a restart
 * repeats nothing; the control with catch-up off never runs the missed crossings.
 */
import { describe } from '@jest/globals';

import { skipE2e } from '../../scripts/n8n-instance';
import { e2eLog } from '../e2e/helpers';
import { useSelfHealingScenario } from '../e2e/trigger-health';
import { VERSIONS } from './versions';

(skipE2e() ? describe.skip : describe)(
	`real n8n ${VERSIONS.join(' and ')}: the ERP Trigger heals itself and catches up once`,
	() => {
		useSelfHealingScenario({
			versions: VERSIONS,
			folderPrefix: (version) => `n8n-nodes-erp-compat-health-${version}-`,
			log: (version) => e2eLog(`compat trigger health ${version}`),
		});
	},
);
