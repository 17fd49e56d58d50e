/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Polling Trigger in real n8n (the default version): the catch-up across restarts of
 * test/e2e/polling-scenario.ts (25 movements and 3 low-stock crossings made while n8n is stopped
 * run exactly once; a restart repeats nothing; the control with its position cleared repeats).
 * test/compat/polling.compat.ts runs the same scenario on the older supported n8n versions.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import {
	closePollingSinks,
	pollingWorkflows,
	runPollingScenario,
	startPollingSinks,
	type PollingSinks,
} from './polling-scenario';
import { e2eLog, MINUTE, startE2e, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e-polling');

(SKIP ? describe.skip : describe)(`real n8n ${N8N_VERSION}: the ERP Polling Trigger`, () => {
	let e2e: E2e;
	let sinks: PollingSinks;
	const files = keepFilesOnFailure(log);

	beforeAll(async () => {
		sinks = await startPollingSinks();
		e2e = await startE2e({
			folderPrefix: 'n8n-nodes-erp-e2e-polling-',
			log,
			files,
			workflows: () => pollingWorkflows(sinks),
		});
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await closePollingSinks(sinks);
	}, 10 * MINUTE);

	it(
		'after n8n was stopped, 25 movements and 3 crossings run exactly once; a restart repeats nothing; a cleared position repeats everything',
		files.track(async () => await runPollingScenario(e2e, sinks, log)),
		20 * MINUTE,
	);
});
