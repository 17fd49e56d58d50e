/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * What the self-healing scenario (test/e2e/trigger-health.ts) works with, per real n8n: two
 * published workflows, the ERP Trigger on `stock.bas` posting to a chat sink, a check every
 * minute (the shortest interval):
 * - `on`: Catch Up Missed Events on (the default);
 * - `off`: the control, the same with catch-up off (missed crossings must never run there).
 * Each sink message is `<reference>[ caught-up][ restored:<reason>]`, so that runs are counted
 * per identity (the crossing's article), and how each came is visible.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';

import { sandboxRequests, sandboxStats } from '../../sandbox';
import { SANDBOX_CREDENTIAL, startChatSink, type ChatSink } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import type { keepFilesOnFailure } from '../../scripts/n8n-instance';
import { expectCount, type CountOptions } from './count';
import { chainWorkflow, erp, startE2e, waitFor, type E2e } from './helpers';

/** The grace before catch-up takes an event (a younger one may still come by webhook). */
export const GRACE_MS = 60_000;
const JOURNAL_READS = 'GET /v1/stock/mouvements';

export type Side = 'on' | 'off';
export const SIDES: Side[] = ['on', 'off'];
const WORKFLOWS: Record<Side, { id: string; hookId: string; catchUp: boolean }> = {
	on: { id: 'ErpSelfHealing01', hookId: '7d2e4f6a-1b3c-4d5e-8f70-a1b2c3d4e5f6', catchUp: true },
	off: { id: 'ErpNoCatchUp01', hookId: '8e3f5a7b-2c4d-4e6f-9a81-b2c3d4e5f6a7', catchUp: false },
};

export type Sink = ChatSink & { arrivals: number[] };

/** One real n8n of the scenario: its files, its n8n and sandbox, and one sink per workflow. */
export type Healing = {
	version: string;
	log: Log;
	e2e: E2e;
	sinks: Record<Side, Sink>;
};

/** The published workflow: stock.bas into the sink, saying how the event came. */
function healingWorkflow(side: Side, sinkUrl: string) {
	const { id, hookId, catchUp } = WORKFLOWS[side];
	return chainWorkflow(id, `E2E: low stock by webhook, self-healing, catch-up ${side}`, [
		{
			name: 'ERP Trigger',
			type: 'n8n-nodes-erp.erpTrigger',
			webhookId: hookId,
			credentials: { erpApi: SANDBOX_CREDENTIAL },
			parameters: {
				registration: 'automatic',
				events: ['stock.bas'],
				options: { checkMinutes: 1, catchUp },
			},
		},
		{
			name: 'Post reference',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: sinkUrl,
				sendBody: true,
				specifyBody: 'keypair',
				bodyParameters: {
					parameters: [
						{
							name: 'text',
							value:
								"={{ $json.data.reference }}{{ $json.caught_up ? ' caught-up' : '' }}{{ $json.registration ? ' restored:' + $json.registration.reason : '' }}",
						},
					],
				},
				options: {},
			},
		},
	]);
}

/** n8n `version` prepared with both workflows imported, not started (the builds run one by one). */
export async function prepareHealing(options: {
	version?: string;
	folderPrefix: string;
	log: Log;
	files: ReturnType<typeof keepFilesOnFailure>;
}): Promise<Healing> {
	const sink = async (): Promise<Sink> => {
		const arrivals: number[] = [];
		return Object.assign(await startChatSink(0, () => arrivals.push(Date.now())), { arrivals });
	};
	const sinks = { on: await sink(), off: await sink() };
	const e2e = await startE2e({
		version: options.version,
		folderPrefix: options.folderPrefix,
		log: options.log,
		files: options.files,
		start: false,
		workflows: () => SIDES.map((side) => healingWorkflow(side, sinks[side].url)),
	});
	return { version: options.version ?? 'default', log: options.log, e2e, sinks };
}

/** Starts n8n and publishes both workflows. */
export async function publishHealing(h: Healing): Promise<void> {
	await h.e2e.start();
	for (const side of SIDES) await h.e2e.rest.activate(WORKFLOWS[side].id);
}

export async function closeHealing(h: Healing | undefined): Promise<void> {
	await h?.e2e.stop();
	for (const side of SIDES) await h?.sinks[side].close();
}

/** A real crossing: an article at 20 with seuil_alerte 10 brought to 5. Its reference and time. */
export async function crossing(h: Healing, tag: string): Promise<{ ref: string; at: number }> {
	const article = await erp(h.e2e.sandbox, '/articles', {
		method: 'POST',
		body: {
			reference: `HEAL-${tag}-${Date.now()}`,
			designation: `Bol ${tag}`,
			prix_ht: 900,
			tva: 2000,
			stock: 20,
			seuil_alerte: 10,
		},
	});
	const at = Date.now();
	await erp(h.e2e.sandbox, `/articles/${article.id}`, { method: 'PATCH', body: { stock: 5 } });
	return { ref: article.reference as string, at };
}

type Registration = { id: string; status: string; url: string };

/** The ERP's registrations with this workflow's URL. */
export async function registrations(h: Healing, side: Side): Promise<Registration[]> {
	return (await erp(h.e2e.sandbox, '/webhooks')).data.filter((w: Registration) =>
		w.url.includes(WORKFLOWS[side].hookId),
	);
}

/** Exactly one registration for the workflow (waiting for it), logging what the ERP was asked. */
export async function oneRegistration(
	h: Healing,
	side: Side,
	what: string,
	options: CountOptions = {},
): Promise<Registration> {
	try {
		await expectCount(
			`${what} (${side})`,
			1,
			async () => ({ count: (await registrations(h, side)).length }),
			{ pollMs: 2_000, ...options },
		);
	} finally {
		const asked = (await sandboxRequests(h.e2e.sandbox.url))
			.filter((r) => r.path.startsWith('/v1/webhooks'))
			.map((r) => `${r.method} ${r.path} ${r.status}`);
		h.log(
			`${what} (${side}): ${JSON.stringify(await registrations(h, side))}; asked ${asked.join(', ')}`,
		);
	}
	return (await registrations(h, side))[0];
}

export async function deleteRegistration(h: Healing, id: string): Promise<void> {
	await erp(h.e2e.sandbox, `/webhooks/${id}`, { method: 'DELETE' });
}

/** The restore lines n8n logged for this workflow. */
export function restoreLines(h: Healing, side: Side): string[] {
	const pattern = new RegExp(
		`webhook registration of workflow ${WORKFLOWS[side].id}, node .* was restored \\(the ERP no longer had it\\)`,
		'g',
	);
	return fs.readFileSync(h.e2e.config.paths.n8nLog, 'utf8').match(pattern) ?? [];
}

/** Requests the ERP received, by path (`GET /v1/webhooks/:id`, ...): the sandbox's counters. */
export async function requestsByPath(h: Healing): Promise<Record<string, number>> {
	return { ...(await sandboxStats(h.e2e.sandbox.url)).byPath };
}

/** How often the ERP was asked for this registration (each check of it is one GET). */
async function checksOf(h: Healing, webhookId: string): Promise<number> {
	return (await sandboxRequests(h.e2e.sandbox.url)).filter(
		(r) => r.method === 'GET' && r.path === `/v1/webhooks/${webhookId}`,
	).length;
}

/**
 * Waits until every event made by `eventsAt` is past the grace and each workflow has had a check
 * since: the catch-up one read the journal (catch-up runs after its check), the control checked
 * its registration `controlHook`. Whatever catch-up would run for those events has then started.
 * Resolves with the ERP's request counters as they were before those checks.
 */
export async function checkedAfterGrace(
	h: Healing,
	eventsAt: number,
	controlHook: string,
): Promise<Record<string, number>> {
	const pastGrace = eventsAt + GRACE_MS + 1_000;
	if (Date.now() < pastGrace) await new Promise((r) => setTimeout(r, pastGrace - Date.now()));
	const checks = await checksOf(h, controlHook);
	const counted = await requestsByPath(h);
	const reads = counted[JOURNAL_READS] ?? 0;
	const since = Date.now();
	await waitFor(
		'a check of each workflow after the grace',
		async () =>
			((await requestsByPath(h))[JOURNAL_READS] ?? 0) > reads &&
			(await checksOf(h, controlHook)) > checks
				? true
				: undefined,
		// n8n's scheduled checks come every minute; a deadline, not a measure: on a machine busy
		// with other test files' n8n processes they were seen later than two grace periods.
		4 * GRACE_MS,
	);
	h.log(`a check of each workflow came ${Date.now() - since} ms after the grace`);
	return counted;
}

/** A run the sink must have received once: the crossing's reference, and how it came. */
export type Expected = { ref: string; caughtUp: boolean };

/**
 * The sink received exactly these runs (each reference once, caught up or by webhook as said),
 * and `restores` of them carry a restore note; nothing else for the quiet period.
 */
export async function expectMessages(
	h: Healing,
	side: Side,
	expected: Expected[],
	restores: number,
	options: CountOptions = {},
): Promise<void> {
	const sink = h.sinks[side];
	await expectCount(
		`runs of the catch-up-${side} workflow`,
		expected.length,
		async () => ({ count: sink.messages.length, detail: sink.messages }),
		{ deadlineMs: 3 * GRACE_MS, quietMs: 8_000, ...options },
	);
	const seen = sink.messages.map((text) => ({
		ref: text.split(' ')[0],
		caughtUp: text.includes(' caught-up'),
	}));
	const byRef = (list: Expected[]) =>
		[...list].sort((a, b) => a.ref.localeCompare(b.ref)).map((e) => `${e.ref} ${e.caughtUp}`);
	assert.deepEqual(byRef(seen), byRef(expected), `catch-up ${side}: each run once, as it came`);
	assert.equal(
		sink.messages.filter((text) => text.includes(' restored:gone')).length,
		restores,
		`catch-up ${side}: the restore reported in ${restores} item(s): ${JSON.stringify(sink.messages)}`,
	);
}
