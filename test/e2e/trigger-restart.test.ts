/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger heals itself in real n8n 2.41.x, in one workflow: the scenario of
 * test/e2e/trigger-health.ts (registration deleted while n8n is stopped, and while it runs; a
 * restart repeats nothing).
 */
import { afterAll, beforeAll, describe } from '@jest/globals';

import { startChatSink, type ChatSink } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { e2eLog, MINUTE, startE2e, type E2e } from './helpers';
import { HEALING_WORKFLOW, selfHealingScenario, selfHealingWorkflow } from './trigger-health';

const SKIP = skipE2e();

(SKIP ? describe.skip : describe)(`real n8n ${N8N_VERSION}: the ERP Trigger heals itself`, () => {
	const log = e2eLog('e2e-trigger-restart');
	const files = keepFilesOnFailure(log);
	let e2e: E2e;
	let sink: ChatSink;

	beforeAll(async () => {
		sink = await startChatSink();
		e2e = await startE2e({
			folderPrefix: 'n8n-nodes-erp-e2e-restart-',
			log,
			files,
			workflows: () => [selfHealingWorkflow(sink.url)],
		});
		await e2e.rest.activate(HEALING_WORKFLOW);
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await sink?.close();
	}, 10 * MINUTE);

	selfHealingScenario(
		() => e2e,
		() => sink,
		files,
		log,
	);
});
