/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (polling-queue.ts, on its cluster, with and without durable poll
 * cursors): `kill -9` of main inside a polling catch-up. Main stopped, an article and 20 stock
 * movements made; the sandbox then answers pages of at most `PAGE_SIZE` movements, each
 * `PAGE_MS` late, so that the catch-up reads for several seconds; main started. As soon as the
 * sandbox's request log shows the first page of the catch-up answered (the poll is reading the
 * next one), main is killed; the sandbox is set back to normal and main started again. Nothing is
 * lost, and nothing runs twice: n8n saves a poll's position only when the poll emits (default
 * cursors: the static data, at the same time as the execution is created; durable cursors: in
 * one transaction with the execution), and a poll killed while it reads has emitted nothing, so
 * the restarted main reads the same movements again from the old position. The scenario's own
 * guard: at the kill, a page of the catch-up was answered and no execution had been created (the
 * kill landed inside the reads, before any poll emitted). The figures are printed
 * (`# main kill -9 ...`).
 */
import assert from 'node:assert/strict';

import type { ChatSink } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import { sandboxControl } from '../../scripts/order-burst';
import type { QueueDeployment } from '../../scripts/queue-mode';
import { stableCount } from '../e2e/count';
import { erp } from '../e2e/helpers';
import { journal } from '../e2e/polling-scenario';
import type { PollingTarget, Timing } from '../e2e/polling-target';
import { sinkReading } from '../e2e/sinks';
import { waitFor } from '../trigger/helpers';

const MOVEMENTS = 20;
/** The sandbox's largest page during the kill: the 20 movements take 4 pages. */
const PAGE_SIZE = 5;
/** How late the sandbox answers each page of the journal during the kill. */
const PAGE_MS = 3000;
const JOURNAL = '/v1/stock/mouvements';
/**
 * How long n8n 2.41 keeps a killed main's claim on the publications it was applying
 * (N8N_WORKFLOW_PUBLICATION_OUTBOX_LEASE_SECONDS, default 120 s): the poll at activation runs in
 * one, so the restarted main activates the workflow, and catches up, only once it ran out.
 */
const LEASE_MS = 120_000;

type Logged = { method: string; path: string; query: Record<string, string>; status: number };

export async function mainKilledDuringCatchUp(
	q: QueueDeployment,
	target: PollingTarget,
	moves: ChatSink,
	timing: Timing,
	log: Log,
): Promise<void> {
	const { sandbox } = target;
	const start = moves.messages.length;
	const known = await journal(sandbox);
	const position = known[known.length - 1];
	const executions = () => Number(q.sql('SELECT coalesce(max(id), 0) FROM execution_entity'));
	log('stopping main; an article and 20 movements');
	await q.stopMain();
	const lastExecution = executions();
	const article = await erp(sandbox, '/articles', {
		method: 'POST',
		body: {
			reference: `POLL-KILL-${Date.now()}`,
			designation: 'Killed-main mug',
			prix_ht: 900,
			tva: 2000,
			stock: 100,
			seuil_alerte: 0,
		},
	});
	for (let i = 1; i <= MOVEMENTS; i++)
		await erp(sandbox, `/articles/${article.id}`, { method: 'PATCH', body: { stock: 100 - i } });
	const made = (await journal(sandbox)).slice(known.length);
	assert.ok(made.length >= MOVEMENTS, `${made.length} movements made`);

	await sandboxControl(sandbox.url, 'config', { maxPageSize: PAGE_SIZE });
	await sandboxControl(sandbox.url, 'faults', {
		faults: [{ kind: 'slow', ms: PAGE_MS, methods: ['GET'], paths: [JOURNAL] }],
	});
	// Pages of the catch-up: after the old position, in the small page size (only after this start).
	const catchUpPages = async () =>
		(await sandboxControl<{ data: Logged[] }>(sandbox.url, 'requests')).data.filter(
			(r) =>
				r.path === JOURNAL &&
				r.status === 200 &&
				r.query.limit === String(PAGE_SIZE) &&
				(r.query.cursor === position || made.includes(r.query.cursor)),
		).length;
	log(`starting main; kill -9 once a page of the catch-up is answered (pages ${PAGE_MS} ms late)`);
	const since = Date.now();
	// Watched while main starts: with the default cursors n8n polls during its start.
	const starting = q.startMain();
	starting.catch(() => undefined); // awaited below
	await waitFor(
		'a page of the catch-up answered',
		async () => {
			await new Promise((resolve) => setTimeout(resolve, 200));
			return (await catchUpPages()) > 0;
		},
		timing.catchUpMs + 60_000,
	);
	await starting;
	await q.killMain();
	const killedAt = (Date.now() - since) / 1000;
	const pagesAtKill = await catchUpPages();
	const createdAtKill = executions() - lastExecution;
	const atKill = moves.messages.length - start;
	log(
		`main killed ${killedAt.toFixed(1)} s after its start: ${pagesAtKill} pages answered, ${createdAtKill} executions created, ${atKill} posted; starting it again`,
	);
	await sandboxControl(sandbox.url, 'faults', { faults: [] });
	await sandboxControl(sandbox.url, 'config', { maxPageSize: 100 });
	const restartedAt = Date.now();
	await q.startMain();
	const all = () => made.every((id) => moves.messages.slice(start).includes(id));
	// Counted below, lost or not: a timeout here only ends the wait.
	await waitFor('every movement posted after the restart', all, timing.catchUpMs + LEASE_MS).catch(
		() => false,
	);
	const caughtUp = (Date.now() - restartedAt) / 1000;
	await stableCount('posted movements after the kill', sinkReading(moves), {
		quietMs: timing.restartQuietMs,
		deadlineMs: timing.restartQuietMs + 60_000,
	});
	const posted = moves.messages.slice(start);
	const missing = made.filter((id) => !posted.includes(id));
	const twice = posted.length - new Set(posted).size;
	process.stdout.write(
		`# main kill -9 inside the catch-up (${timing.durable ? 'durable poll cursors' : 'default poll cursors'}): ` +
			`killed ${killedAt.toFixed(1)} s after its start with ${pagesAtKill} pages of ${PAGE_SIZE} answered (each ${PAGE_MS} ms late), ` +
			`${createdAtKill} executions created, ${atKill} of ${made.length} posted; restarted, all posted ${caughtUp.toFixed(0)} s later, ${posted.length} posted in all, ` +
			`${missing.length} lost, ${twice} posted twice\n`,
	);
	if (missing.length > 0 || twice > 0) log(`the last lines of every log:\n${q.logs(40)}`);
	assert.ok(pagesAtKill > 0, 'guard: the kill came while the catch-up was reading');
	assert.equal(createdAtKill, 0, 'guard: the kill came before any poll emitted');
	assert.deepEqual(missing, [], 'no movement lost');
	assert.equal(twice, 0, 'no movement posted twice');
	assert.ok(
		posted.every((id) => made.includes(id)),
		'only the movements made while main was stopped were posted',
	);
}
