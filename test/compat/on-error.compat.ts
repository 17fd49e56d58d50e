/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Settings › On Error (issue 40, item 1) in each real n8n of VERSIONS (./versions.ts; `npm test`
 * covers the default N8N_VERSION in test/e2e/on-error.test.ts, with the same workflows and checks,
 * test/e2e/on-error.ts): ERP › Article › Get by reference over four items under each setting,
 * run as the editor runs it (n8nExecute). Continue (using error output): the two failures on the error output with the
 * input item's fields and the error, the two articles on the success output; Continue (regular
 * output): all four on the success output; Stop Workflow: the run fails naming the item. Control:
 * n8n's own HTTP Request node routes the same four items 2 and 2.
 *
 * n8n before 2.41 moves an item to the error output only when its json holds `error` alone (or
 * `error` and `message`); 2.41 also accepts `details` (n8n-core's handleNodeErrorOutput).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { e2eLog, MINUTE, startE2e, type E2e } from '../e2e/helpers';
import { checkRouting, checkStop, onErrorWorkflows } from '../e2e/on-error';
import { VERSIONS } from './versions';

const SKIP = skipE2e();
const IDS = { routing: 'ErpCompatOnErr01', stop: 'ErpCompatOnErr02' };

(SKIP ? describe.skip : describe).each(VERSIONS)('real n8n %s: On Error', (version) => {
	const log = e2eLog(`compat on-error ${version}`);
	const files = keepFilesOnFailure(log);
	const track = files.track;
	let e2e: E2e;

	beforeAll(async () => {
		e2e = await startE2e({
			version,
			folderPrefix: `n8n-nodes-erp-compat-on-error-${version}-`,
			log,
			files,
			workflows: (sandbox) => onErrorWorkflows(IDS, sandbox.baseUrl),
		});
	}, 60 * MINUTE);

	afterAll(async () => {
		await e2e?.stop('setup');
	}, 10 * MINUTE);

	it(
		'each On Error setting routes the failed items as n8n’s own nodes do, each item paired with its input',
		track(async () => await checkRouting(e2e.config, IDS.routing, log)),
		20 * MINUTE,
	);

	it(
		'Stop Workflow: the execution fails, naming the item',
		track(async () => await checkStop(e2e.config, IDS.stop, log)),
		20 * MINUTE,
	);
});
