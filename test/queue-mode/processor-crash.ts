/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (webhooks-nginx.queue.ts, on its cluster): `kill -9` of the webhook
 * processor that nginx sends an ERP Trigger's path to, while the ERP (the sandbox) delivers
 * events to it, a few at a time. nginx sends the next deliveries to the other processor; the
 * deliveries that were in flight at the kill fail (no answer) and the ERP retries them (1, 2,
 * 4... s later, 6 attempts). In the end every event ran at least once, and only events whose
 * delivery was in flight at the kill may run twice (one the killed processor had queued but not
 * answered): how many is printed. The scenario's own guard: at least one delivery failed at the
 * kill and was retried (else it proved nothing).
 */
import assert from 'node:assert/strict';

import type { SandboxHandle } from '../../sandbox';
import type { RunningNginx } from '../../scripts/nginx';
import type { QueueDeployment } from '../../scripts/queue-mode';
import { stableRunCount } from '../e2e/count';
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

async function sandboxJson<T>(sandbox: SandboxHandle, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${sandbox.url}/_sandbox/${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	assert.equal(response.status, 200, `sandbox ${path}`);
	return (await response.json()) as T;
}

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
	const runsBefore = await stableRunCount(q.rest, trigger.workflowId);
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
	const runs = (await stableRunCount(q.rest, trigger.workflowId)) - runsBefore;
	const mine = (await attempts()).slice(seen).filter((a) => ids.includes(a.event_id));
	const failed = mine.filter((a) => !a.ok);
	const retried = new Set(failed.map((a) => a.event_id));
	const delivered = new Set(mine.filter((a) => a.ok).map((a) => a.event_id));
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
			`${delivered.size} of ${EVENTS} answered 2xx, ${runs} runs (${runs - EVENTS} twice); processors that took the path: ${JSON.stringify(after)}\n`,
	);
	assert.equal(delivered.size, EVENTS, 'every event delivered');
	assert.ok(retried.size > 0, 'the kill hit deliveries in flight, which the ERP retried');
	assert.ok(runs >= EVENTS, `none lost: ${runs} runs for ${EVENTS} events`);
	// A delivery the killed processor had queued but not answered is run again when the ERP
	// retries it on the other processor, which never saw it: only those can run twice.
	assert.ok(
		runs <= EVENTS + retried.size,
		`at most the ${retried.size} retried events run twice: ${runs} runs`,
	);
}
