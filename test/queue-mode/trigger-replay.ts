/**
 * For `npm run test:queue` (shared.queue.ts, on the shared deployment): the ERP Trigger's replay
 * checks (test/e2e/trigger-replay.ts) against the webhook processor of n8n's queue mode (main, a
 * webhook processor, 2 workers, Redis, PostgreSQL; see scripts/queue-mode.ts), with the packed
 * package installed in every n8n process; the workers run the executions. The burst of orders that
 * ran here is the flash sale's (flash-sale.ts).
 *
 * Its sandbox is the one the demo credential (SANDBOX_CREDENTIAL) points at.
 */
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { registrationSecret, replayChecks, triggerWorkflow } from '../e2e/trigger-replay';
import type { Scenario } from './shared-deployment';

const MINUTE = 60_000;
const TRIGGER = { workflowId: 'ErpQueueTrigger1', hookId: '6c1e2f3a-8b9c-4d0e-9f1a-2b3c4d5e6f71' };

export const triggerReplay: Scenario = {
	tag: 'queue',
	imports: () => ({
		workflows: [
			triggerWorkflow(TRIGGER.workflowId, TRIGGER.hookId, 'automatic', SANDBOX_CREDENTIAL, {
				catchUp: false,
			}),
		],
	}),
	tests: [
		{
			name: 'queue mode, one webhook processor: a replayed ERP Trigger delivery never starts a second run, one by one or ten at once',
			timeoutMs: 10 * MINUTE,
			async run({ queue: q, sandbox }) {
				await q.rest.activate(TRIGGER.workflowId);
				// Deliveries go to the webhook processor (N8N_WEBHOOK_URL, where the trigger registered
				// itself); the workers run the executions.
				const target = { ...TRIGGER, webhookUrl: q.webhookUrl, rest: q.rest };
				await replayChecks(target, await registrationSecret(sandbox.url, target), 'webhook');
			},
		},
	],
};
