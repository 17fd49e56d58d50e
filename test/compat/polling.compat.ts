/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:compat`: the ERP Polling Trigger's catch-up across restarts (the README's
 * Compatibility table, "Polling trigger: catch-up exactly once across restarts") in each real n8n
 * of VERSIONS, the scenario of test/e2e/polling-scenario.ts that test/e2e/polling.test.ts runs on
 * the default n8n. What it relies on, read in each version's source (README, *Webhook or
 * polling?*): a poll runs at activation and at every start, and the static data is saved after it
 * and when a poll emits.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import {
	closePollingSinks,
	pollingWorkflows,
	runPollingScenario,
	startPollingSinks,
	type PollingSinks,
} from '../e2e/polling-scenario';
import { e2eLog, MINUTE, startE2e, type E2e } from '../e2e/helpers';
import { VERSIONS } from './versions';

const SKIP = skipE2e();

(SKIP ? describe.skip : describe).each(VERSIONS)(
	'real n8n %s: the ERP Polling Trigger',
	(version) => {
		const log = e2eLog(`compat polling ${version}`);
		const files = keepFilesOnFailure(log);
		let e2e: E2e;
		let sinks: PollingSinks;

		beforeAll(async () => {
			sinks = await startPollingSinks();
			e2e = await startE2e({
				version,
				folderPrefix: `n8n-nodes-erp-compat-polling-${version}-`,
				log,
				files,
				workflows: () => pollingWorkflows(sinks),
			});
		}, 60 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
			await closePollingSinks(sinks);
		}, 10 * MINUTE);

		it(
			'after n8n was stopped, 25 movements and 3 crossings run exactly once; a restart repeats nothing; a cleared position repeats everything',
			files.track(async () => await runPollingScenario(e2e, sinks, log)),
			20 * MINUTE,
		);
	},
);
