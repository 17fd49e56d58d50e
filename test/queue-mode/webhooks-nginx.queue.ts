/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm run test:queue`: several webhook processors behind a real load balancer. n8n in queue
 * mode with 2 webhook processors and 2 workers (scripts/queue-mode.ts), main out of the
 * `/webhook/` pool (N8N_DISABLE_PRODUCTION_MAIN_PROCESS), behind Debian's nginx with the
 * Production guide's configuration (scripts/nginx.ts, `webhookSite`): each path to one
 * processor. 50 distinct signed deliveries, each sent 3 times, the copies in 3 rounds a few
 * seconds apart and in a new order each round: exactly 50 runs. Control: a second nginx in
 * round robin over the same processors, the same sending to another trigger: more than 50 runs.
 *
 * A deployment of its own, not the shared one (shared.queue.ts): 2 webhook processors, main out
 * of the webhook pool and N8N_WEBHOOK_URL on nginx (other n8n settings), and its last two
 * scenarios kill a webhook processor and a worker.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, test } from '@jest/globals';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { EXAMPLE_IDS, loadExamples, SANDBOX_CREDENTIAL, wireExample } from '../../scripts/examples';
import { freePort } from '../../scripts/n8n-instance';
import { startNginx, type RunningNginx, type WebhookSite } from '../../scripts/nginx';
import { startQueueDeployment, type QueueDeployment } from '../../scripts/queue-mode';
import type { SignedDelivery } from '../trigger/helpers';
import { expectRuns, stableRunCount } from '../e2e/count';
import { processorCrashDuringDeliveries } from './processor-crash';
import { workerCrashDuringBurst } from './worker-crash';
import {
	deliver,
	DUPLICATE,
	registrationSecret,
	sign,
	started,
	triggerWorkflow,
	type Answer,
	type TriggerTarget,
} from '../e2e/trigger-replay';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const log = (line: string) => process.stderr.write(`[nginx] ${line}\n`);
const MINUTE = 60_000;
const DELIVERIES = 50;
const COPIES = 3;
/** Between two rounds of copies. */
const ROUND_PAUSE_MS = 3000;
/** Deliveries in flight at once within a round. */
const AT_ONCE = 10;
const RECIPE = { workflowId: 'ErpNginxTrigger1', hookId: '0b7d5c2e-4a61-4f3e-9d8c-1e2f3a4b5c61' };
const CONTROL = { workflowId: 'ErpNginxTrigger2', hookId: '0b7d5c2e-4a61-4f3e-9d8c-1e2f3a4b5c62' };

let sandbox: SandboxHandle;
let queue: QueueDeployment | undefined;
let folder: string;
let recipe: RunningNginx | undefined;
let control: RunningNginx | undefined;

const hostPort = (url: string) => new URL(url).host;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	folder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nginx-'));
	const [recipePort, controlPort] = [await freePort(), await freePort()];
	queue = await startQueueDeployment({
		sandboxBaseUrl: sandbox.baseUrl,
		workflows: [
			...[RECIPE, CONTROL].map((t) =>
				triggerWorkflow(t.workflowId, t.hookId, 'automatic', SANDBOX_CREDENTIAL, {
					catchUp: false,
				}),
			),
			...loadExamples()
				.map(({ workflow }) => workflow)
				.filter((w) => w.id === EXAMPLE_IDS.orderToInvoice)
				.map((w) => wireExample(w, { chatUrl: 'http://127.0.0.1:9/unused' })),
		],
		log,
		webhookProcessors: 2,
		extraEnv: {
			// Production webhook URLs (registered at the ERP) are the load balancer's.
			N8N_WEBHOOK_URL: `http://127.0.0.1:${recipePort}/`,
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		},
	});
	const site: Omit<WebhookSite, 'listen'> = {
		processors: queue.processes.filter((p) => p.role === 'webhook').map((p) => hostPort(p.url)),
		main: hostPort(queue.mainUrl),
	};
	recipe = await startNginx({ ...site, listen: recipePort }, path.join(folder, 'recipe'), log);
	control = await startNginx(
		{ ...site, listen: controlPort, balance: 'round-robin' },
		path.join(folder, 'control'),
		log,
	);
}, 45 * MINUTE);

afterAll(async () => {
	await recipe?.stop();
	await control?.stop();
	await queue?.stop();
	await sandbox?.close();
	if (folder) fs.rmSync(folder, { recursive: true, force: true });
}, 5 * MINUTE);

/**
 * Sends every delivery `COPIES` times through `balancer`: round after round, a pause between two
 * rounds, each round in a new random order, `AT_ONCE` in flight. The answers, per delivery.
 */
async function sendCopies(
	target: TriggerTarget,
	deliveries: SignedDelivery[],
): Promise<Answer[][]> {
	const answers: Answer[][] = deliveries.map(() => []);
	for (let round = 0; round < COPIES; round++) {
		if (round > 0) await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS));
		const order = deliveries.map((_, i) => i).sort(() => Math.random() - 0.5);
		const next = () => order.shift();
		await Promise.all(
			Array.from({ length: AT_ONCE }, async () => {
				for (let i = next(); i !== undefined; i = next())
					answers[i].push(await deliver(target, deliveries[i]));
			}),
		);
	}
	return answers;
}

/** How many of the trigger's requests each processor answered, from nginx's access log. */
function perProcessor(balancer: RunningNginx, hookId: string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const r of balancer.requests().filter((r) => r.path.includes(hookId)))
		counts[r.upstream] = (counts[r.upstream] ?? 0) + 1;
	return counts;
}

async function prepare(trigger: typeof RECIPE, balancer: RunningNginx) {
	const q = queue!;
	await q.rest.activate(trigger.workflowId);
	const target: TriggerTarget = { ...trigger, webhookUrl: balancer.url, rest: q.rest };
	const secret = await registrationSecret(sandbox.url, { ...target, webhookUrl: recipe!.url });
	const deliveries = Array.from({ length: DELIVERIES }, (_, i) =>
		sign(secret, `evt_lb_${trigger.hookId.slice(-2)}_${i}`),
	);
	await expectRuns(q.rest, trigger.workflowId, 0);
	return { target, deliveries };
}

test(
	`nginx by path over 2 webhook processors, 2 workers: ${DELIVERIES} deliveries sent ${COPIES} times each, spread over time: exactly ${DELIVERIES} runs`,
	async () => {
		const q = queue!;
		const { target, deliveries } = await prepare(RECIPE, recipe!);
		const since = Date.now();
		const answers = await sendCopies(target, deliveries);
		const sentMs = Date.now() - since;
		const runs = await expectRuns(q.rest, RECIPE.workflowId, DELIVERIES, {
			deadlineMs: 3 * MINUTE,
		});
		const processors = perProcessor(recipe!, RECIPE.hookId);
		process.stdout.write(
			`# recipe: ${DELIVERIES * COPIES} requests in ${(sentMs / 1000).toFixed(1)} s, ${runs.length} runs, per processor ${JSON.stringify(processors)}\n`,
		);
		assert.ok(
			answers.every((a) => a.filter(started).length === 1),
			'each delivery accepted once',
		);
		assert.ok(
			answers.every((a) => a.filter((x) => x.status === 200 && x.body === DUPLICATE).length === 2),
			'each delivery answered "duplicate" twice',
		);
		assert.ok(
			runs.every((r) => r.status === 'success'),
			JSON.stringify(runs),
		);
		assert.equal(Object.keys(processors).length, 1, "one processor took the trigger's path");
		// Main, through the same nginx: the editor and REST API answer.
		assert.equal((await fetch(`${recipe!.url}/rest/settings`)).status, 200);
	},
	15 * MINUTE,
);

test(
	`control: nginx in round robin over the same processors: the same sending gives more than ${DELIVERIES} runs`,
	async () => {
		const q = queue!;
		const { target, deliveries } = await prepare(CONTROL, control!);
		await sendCopies(target, deliveries);
		await assert.rejects(
			expectRuns(q.rest, CONTROL.workflowId, DELIVERIES, { deadlineMs: 3 * MINUTE }),
			/Counted \d+ executions of workflow \S+ (before|during)|100 executions or more/,
		);
		const count = await stableRunCount(q.rest, CONTROL.workflowId);
		process.stdout.write(
			`# control (round robin): ${count} runs for ${DELIVERIES} deliveries, per processor ${JSON.stringify(perProcessor(control!, CONTROL.hookId))}\n`,
		);
		assert.ok(count > DELIVERIES, `${count} runs`);
	},
	15 * MINUTE,
);

test(
	"kill -9 of the webhook processor that has the trigger's path, while the ERP delivers 40 events: its retries deliver every one; none runs more than twice, and only deliveries in flight at the kill twice",
	async () => {
		const q = queue!;
		await q.rest.deactivate(CONTROL.workflowId);
		await processorCrashDuringDeliveries(q, sandbox, recipe!, RECIPE, (line) =>
			log(`processor crash: ${line}`),
		);
	},
	10 * MINUTE,
);

test(
	'kill -9 of one worker during the 40-order burst through nginx: unanswered orders resent (same body), each order one invoice and one settlement',
	async () => {
		const q = queue!;
		// The burst's own events (invoices, settlements) would start trigger runs: not counted here.
		await q.rest.deactivate(RECIPE.workflowId);
		await q.rest.activate(EXAMPLE_IDS.orderToInvoice);
		const order = loadExamples().find(
			({ workflow }) => workflow.id === EXAMPLE_IDS.orderToInvoice,
		)!;
		const webhookPath = String(
			order.workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path,
		);
		await workerCrashDuringBurst(q, sandbox, `${recipe!.url}/webhook/${webhookPath}`, (line) =>
			log(`worker crash: ${line}`),
		);
	},
	20 * MINUTE,
);
