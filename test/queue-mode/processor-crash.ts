/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (webhooks-nginx.queue.ts, on its cluster): `kill -9` of the webhook
 * processor that nginx sends an ERP Trigger's path to, while the ERP (the sandbox) delivers
 * events to it, a few at a time. nginx sends the next deliveries to the other processor; the
 * deliveries that were in flight at the kill fail (no answer) and the ERP retries them (1, 2,
 * 4... s later, 6 attempts). The runs are counted per event, from each execution's data in
 * PostgreSQL: every event ran at least once, none more than twice, and only events with a failed
 * attempt (in flight at the kill) ran twice. Why twice at all: n8n 2.41 answers a webhook
 * ("Respond: Immediately") only after `WorkflowRunner.run` has queued the execution
 * (webhook-helpers.js, `executeWebhook`), so a delivery the killed processor had queued but not
 * answered yet is retried by the ERP, reaches the other processor, whose replay memory never saw
 * it, and runs again. How many did is printed. The scenario's own guard: at least one delivery
 * failed at the kill and was retried (else it proved nothing).
 */
import assert from 'node:assert/strict';

import type { SandboxHandle } from '../../sandbox';
import type { RunningNginx } from '../../scripts/nginx';
import { sandboxControl } from '../../scripts/order-burst';
import type { QueueDeployment } from '../../scripts/queue-mode';
import { stableCount } from '../e2e/count';
import { waitFor } from '../trigger/helpers';

const EVENTS = 40;
/** Events emitted at once, and the pause between two groups. */
const GROUP = 4;
const GROUP_PAUSE_MS = 250;
/** The processor is killed once this many deliveries were answered 2xx. */
const KILL_AFTER = 8;

type Attempt = {
	event_id: string;
	attempt: number;
	status: number | null;
	error: string | null;
	ok: boolean;
};

const sandboxJson = async <T>(sandbox: SandboxHandle, path: string, body?: unknown) =>
	await sandboxControl<T>(sandbox.url, path, body);

export async function processorCrashDuringDeliveries(
	q: QueueDeployment,
	sandbox: SandboxHandle,
	balancer: RunningNginx,
	trigger: { workflowId: string; hookId: string },
	log: (line: string) => void,
): Promise<void> {
	const hookPath = `/webhook/${trigger.hookId}/erp`;
	const hook = await sandboxJson<{ id: string }>(
		sandbox,
		`webhook-secret?url=${encodeURIComponent(`${balancer.url}${hookPath}`)}`,
	);
	const upstream = balancer.requests().find((r) => r.path === hookPath)!.upstream;
	const victim = q.processes.find((p) => p.role === 'webhook' && new URL(p.url).host === upstream)!;
	const lastExecution = Number(q.sql('SELECT coalesce(max(id), 0) FROM execution_entity'));
	// The trigger's executions from now on, each as its status and its data (n8n's flattened JSON,
	// one line each, holding its event's id), read in PostgreSQL: no cap on the count.
	const executionsSince = () =>
		q
			.sql(
				`SELECT e.status || ' ' || d.data FROM execution_data d JOIN execution_entity e ON e.id = d."executionId" ` +
					`WHERE e."workflowId" = '${trigger.workflowId}' AND e.id > ${lastExecution}`,
			)
			.split('\n')
			.filter(Boolean);
	const attempts = async () =>
		(await sandboxJson<{ data: Attempt[] }>(sandbox, `deliveries?webhook_id=${hook.id}`)).data;
	const seen = (await attempts()).length;
	const ids: string[] = [];
	const emitting = (async () => {
		for (let i = 0; i < EVENTS; i += GROUP) {
			const group = await Promise.all(
				Array.from({ length: Math.min(GROUP, EVENTS - i) }, async (_, j) =>
					sandboxJson<{ id: string }>(sandbox, 'events', {
						type: 'facture.payee',
						data: { facture_id: `fac_crash_${i + j}`, montant: 100 },
					}),
				),
			);
			ids.push(...group.map((e) => e.id));
			await new Promise((resolve) => setTimeout(resolve, GROUP_PAUSE_MS));
		}
	})();
	await waitFor(
		`${KILL_AFTER} deliveries answered`,
		async () => (await attempts()).slice(seen).filter((a) => a.ok).length >= KILL_AFTER,
		120_000,
	);
	process.kill(-victim.pid, 'SIGKILL');
	log(`killed ${victim.name} (${upstream}), which had the trigger's path`);
	await emitting;
	await waitFor(
		`the ${EVENTS} events answered 2xx`,
		async () =>
			new Set(
				(await attempts())
					.slice(seen)
					.filter((a) => a.ok && ids.includes(a.event_id))
					.map((a) => a.event_id),
			).size === EVENTS,
		3 * 60_000,
	);
	const executions = (
		await stableCount(
			'executions after the kill',
			async () => {
				const lines = executionsSince();
				return {
					count: lines.length,
					settled: !lines.some((line) => line.startsWith('running ')),
					detail: lines,
				};
			},
			{ pollMs: 1000, deadlineMs: 3 * 60_000 },
		)
	).detail!;
	const runs = executions.length;
	const mine = (await attempts()).slice(seen).filter((a) => ids.includes(a.event_id));
	const failed = mine.filter((a) => !a.ok);
	const retried = new Set(failed.map((a) => a.event_id));
	const delivered = new Set(mine.filter((a) => a.ok).map((a) => a.event_id));
	// An execution the killed processor saved but never queued did not run: not counted.
	const data = executions.filter((line) => line.startsWith('success '));
	const notRun = executions.length - data.length;
	const runsOf = new Map(ids.map((id) => [id, data.filter((d) => d.includes(`"${id}"`)).length]));
	const twice = ids.filter((id) => runsOf.get(id)! > 1);
	const after = [
		...new Set(
			balancer
				.requests()
				.filter((r) => r.path === hookPath)
				.map((r) => r.upstream),
		),
	];
	process.stdout.write(
		`# webhook processor kill -9 during ${EVENTS} deliveries: ${failed.length} attempts failed at the kill ` +
			`(${JSON.stringify([...new Set(failed.map((a) => a.status ?? a.error))])}), ${retried.size} events retried, ` +
			`${delivered.size} of ${EVENTS} answered 2xx, ${runs} executions (${notRun} not run); ${twice.length} events ran twice (${twice.filter((id) => retried.has(id)).length} of them retried), ` +
			`most runs of one event ${Math.max(...runsOf.values())}; processors that took the path: ${JSON.stringify(after)}\n`,
	);
	assert.equal(delivered.size, EVENTS, 'every event delivered');
	assert.ok(retried.size > 0, 'guard: the kill hit deliveries in flight, which the ERP retried');
	assert.deepEqual(
		ids.filter((id) => runsOf.get(id)! === 0),
		[],
		'none lost: every event ran',
	);
	assert.ok(
		ids.every((id) => runsOf.get(id)! <= 2),
		`no event ran more than twice: ${JSON.stringify([...runsOf.values()])}`,
	);
	// Only a delivery in flight at the kill (queued by the killed processor, not answered) can run
	// again, when the ERP retries it on the other processor.
	assert.deepEqual(
		twice.filter((id) => !retried.has(id)),
		[],
		'only events with a failed attempt ran twice',
	);
}
