/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger heals itself and catches up what it missed, once, in one workflow: the scenario
 * run in real n8n 2.41.x by test/e2e/trigger-restart.test.ts (a) and
 * test/e2e/trigger-heal-running.test.ts ((b), then (c)), side by side on an n8n each, and whole by
 * test/compat/trigger-health.compat.ts (1.123.81 and 2.33.7, side by side). Each n8n has two
 * published workflows (test/e2e/trigger-healing.ts), a check every minute: catch-up on, and the
 * control with catch-up off, whose missed crossings must never run.
 * - the control: with the registrations in place, a crossing runs once;
 * - (a) the registrations deleted in the ERP while n8n is stopped, crossings made while it is
 *   down: registered again at start; each down-time crossing runs once (caught up), the next
 *   crossing once (by webhook), the one delivered before the stop is not run again;
 * - (b) the registrations deleted while n8n runs: restored within the check interval; the
 *   crossings in between caught up once; the next runs once;
 * - (c) a restart repeats nothing: no run, the registration kept (catch-up on); a quiet check's
 *   requests counted; the next crossing runs once.
 * Counted per identity at the sinks (test/e2e/count.ts), each count after the catch-up workflow
 * read the journal, and the control checked its registration, past the events' grace.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, it } from '@jest/globals';

import type { Log } from '../../scripts/n8n-env';
import { keepFilesOnFailure } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { MINUTE } from './helpers';
import {
	checkedAfterGrace,
	checksById,
	closeHealing,
	crossing,
	deleteRegistration,
	expectMessages,
	type Expected,
	type Healing,
	oneRegistration,
	prepareHealing,
	publishHealing,
	registrations,
	requestsByPath,
	restoreLines,
	type Side,
	SIDES,
} from './trigger-healing';

/** A check every minute: a lost registration is restored within about two minutes. */
const RESTORE_DEADLINE = { deadlineMs: 150_000, quietMs: 1_000, pollMs: 2_000 };

/** What each n8n's workflows must have run so far, and the restores reported. */
type Tally = Record<Side, { runs: Expected[]; restores: number }> & { lastEventAt: number };

/** Runs `phase` on every n8n at once; fails naming each n8n that failed. */
async function onEach(
	instances: Healing[],
	phase: (h: Healing, tally: Tally) => Promise<void>,
	tallies: Map<Healing, Tally>,
): Promise<void> {
	const results = await Promise.allSettled(instances.map((h) => phase(h, tallies.get(h)!)));
	const failed = results.flatMap((r, i) =>
		r.status === 'rejected'
			? [`n8n ${instances[i].version}: ${(r.reason as Error)?.stack ?? String(r.reason)}`]
			: [],
	);
	if (failed.length > 0) throw new Error(failed.join('\n\n'));
}

/** Both sinks hold exactly what the tally says. */
async function expectTally(h: Healing, tally: Tally): Promise<void> {
	await Promise.all(
		SIDES.map((side) => expectMessages(h, side, tally[side].runs, tally[side].restores)),
	);
}

/**
 * After one more restore of each workflow (each logged once): the crossing made next
 * (`next`, its tag) runs once in each workflow by webhook, with the restore's note; the crossings
 * made while the registrations were gone (`missed`) are caught up once each where catch-up is
 * on, and never run in the control. Counted once each workflow checked past their grace.
 */
async function expectCaughtUp(
	h: Healing,
	tally: Tally,
	phase: { next: string; missed: Array<{ ref: string; at: number }> },
	controlHook: string,
): Promise<void> {
	for (const side of SIDES) {
		const restores = tally[side].restores + 1;
		assert.equal(restoreLines(h, side).length, restores, `${side}: each restore logged`);
	}
	const next = await crossing(h, phase.next);
	tally.lastEventAt = next.at;
	for (const side of SIDES) {
		tally[side].runs.push({ ref: next.ref, caughtUp: false });
		tally[side].restores += 1;
	}
	tally.on.runs.push(...phase.missed.map(({ ref }) => ({ ref, caughtUp: true })));
	await checkedAfterGrace(h, phase.missed[phase.missed.length - 1].at, controlHook);
	await expectTally(h, tally);
	const { messages, arrivals } = h.sinks.on;
	const delays = phase.missed.map(
		({ ref, at }) => arrivals[messages.findIndex((m) => m.startsWith(`${ref} caught-up`))] - at,
	);
	h.log(`arrival order (catch-up on): ${JSON.stringify(messages)}`);
	h.log(
		`caught up ${delays.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} after the crossing`,
	);
}

/**
 * The current registration of each workflow; after a restart (`before`: the registrations and
 * checks before it), once each trigger has acted on its registration since.
 */
async function currentRegistrations(
	h: Healing,
	what: string,
	before?: { on: { id: string }; off: { id: string }; checks: Map<string, number> },
) {
	const [on, off] = await Promise.all(
		SIDES.map((side) =>
			oneRegistration(h, side, what, {
				// The first check comes at the trigger's first tick, within a minute of the start.
				...(before && {
					...RESTORE_DEADLINE,
					since: { id: before[side].id, checks: before.checks },
				}),
			}),
		),
	);
	return { on, off };
}

/**
 * The scenario's parts after the control: `stopped`, (a); `running`, (b) then (c), whose restart
 * finds the registrations (b) restored. Each part is whole on its own, so that two files can run
 * them side by side, each on its own n8n.
 */
export type HealingPart = 'stopped' | 'running';

/**
 * For a describe block: each of `versions` (undefined: the default n8n) prepared one after the
 * other, started side by side in beforeAll, stopped in afterAll, and the scenario's tests (the
 * control, then `parts`, both by default), each run on every n8n at once.
 */
export function useSelfHealingScenario(options: {
	folderPrefix: (version: string | undefined) => string;
	log: (version: string | undefined) => Log;
	versions: Array<string | undefined>;
	parts?: HealingPart[];
}): void {
	const parts = options.parts ?? ['stopped', 'running'];
	const files = keepFilesOnFailure(options.log(options.versions[0]));
	const instances: Healing[] = [];
	const tallies = new Map<Healing, Tally>();
	const each = (phase: (h: Healing, tally: Tally) => Promise<void>) =>
		files.track(async () => await onEach(instances, phase, tallies));

	beforeAll(async () => {
		for (const version of options.versions) {
			const h = await prepareHealing({
				version,
				folderPrefix: options.folderPrefix(version),
				log: options.log(version),
				files,
			});
			instances.push(h);
			tallies.set(h, {
				on: { runs: [], restores: 0 },
				off: { runs: [], restores: 0 },
				lastEventAt: 0,
			});
		}
		await Promise.all(instances.map(publishHealing));
	}, 60 * MINUTE);

	afterAll(async () => {
		for (const h of instances) await closeHealing(h);
	}, 10 * MINUTE);

	it(
		'the control: with the registrations in place, a crossing runs once in each workflow',
		each(async (h, tally) => {
			const ok = await crossing(h, 'ok');
			for (const side of SIDES) tally[side].runs.push({ ref: ok.ref, caughtUp: false });
			await expectTally(h, tally);
			h.log(`latency from the crossing to the message: ${h.sinks.on.arrivals[0] - ok.at} ms`);
		}),
		5 * MINUTE,
	);

	if (parts.includes('stopped')) defineStopped(each);
	if (parts.includes('running')) defineRunning(each);
}

type Each = (phase: (h: Healing, tally: Tally) => Promise<void>) => () => Promise<void>;

function defineStopped(each: Each): void {
	it(
		'(a) deleted while n8n was stopped: registered again at start; the crossings made while it was down caught up once (never with catch-up off); the next runs once',
		each(async (h, tally) => {
			const before = await currentRegistrations(h, 'registrations before the stop');
			h.log('stopping n8n, deleting the registrations, making 2 crossings');
			await h.e2e.n8n!.stop();
			for (const side of SIDES) await deleteRegistration(h, before[side].id);
			const down = [await crossing(h, 'down1'), await crossing(h, 'down2')];
			await h.e2e.start();
			const after = await currentRegistrations(h, 'registrations after the start');
			for (const side of SIDES) {
				assert.notEqual(after[side].id, before[side].id, `${side}: registered again at start`);
			}
			await expectCaughtUp(h, tally, { next: 'back', missed: down }, after.off.id);
		}),
		10 * MINUTE,
	);

}

function defineRunning(each: Each): void {
	it(
		'(b) deleted while n8n runs: restored within the check interval; the crossings in between caught up once (never with catch-up off); the next runs once',
		each(async (h, tally) => {
			const before = await currentRegistrations(h, 'registrations before the deletion');
			for (const side of SIDES) await deleteRegistration(h, before[side].id);
			const deletedAt = Date.now();
			const gap = [await crossing(h, 'gap1'), await crossing(h, 'gap2')];
			await Promise.all(
				SIDES.map(async (side) => {
					await expectCount(
						`registrations restored by the scheduled check (${side})`,
						1,
						async () => ({
							count: (await registrations(h, side)).filter((r) => r.id !== before[side].id).length,
						}),
						RESTORE_DEADLINE,
					);
					h.log(`${side}: restored ${Date.now() - deletedAt} ms after the deletion`);
				}),
			);
			const after = await currentRegistrations(h, 'registrations after the restore');
			await expectCaughtUp(h, tally, { next: 'after', missed: gap }, after.off.id);
		}),
		10 * MINUTE,
	);

	it(
		'(c) a restart repeats nothing: no run, the registration kept (catch-up on); a quiet check costs one GET /webhooks/:id and, with catch-up, one journal page; the next crossing runs once',
		each(async (h, tally) => {
			const before = await currentRegistrations(h, 'registrations before the restart');
			const checks = await checksById(h);
			await h.e2e.n8n!.stop();
			await h.e2e.start();
			const after = await currentRegistrations(h, 'registrations after the restart', {
				...before,
				checks,
			});
			// Catch-up on: the registration restored in (b) was saved with the runs that followed it
			// (the trigger's emit saves its static data), so the restart keeps it.
			assert.equal(after.on.id, before.on.id, 'on: the restart keeps the registration');
			// Catch-up off: deliveries run as webhook()'s own runs, which n8n saves no static data
			// with, so the registration restored by the check is saved only now, replaced once more:
			// logged and reported in the next item, never silent.
			const replaced = after.off.id !== before.off.id;
			h.log(`off: the restart ${replaced ? 'replaced' : 'kept'} the registration`);
			assert.equal(restoreLines(h, 'on').length, tally.on.restores, 'on: no restore at the restart');
			assert.equal(
				restoreLines(h, 'off').length,
				tally.off.restores + (replaced ? 1 : 0),
				'off: each restore logged',
			);
			// The first check after the start reads the journal again from the saved position.
			await checkedAfterGrace(h, tally.lastEventAt, after.off.id);
			await expectTally(h, tally);

			const counted = await checkedAfterGrace(h, 0, after.off.id);
			const now = await requestsByPath(h);
			const quiet = Object.fromEntries(
				Object.entries(now)
					.map(([path, n]) => [path, n - (counted[path] ?? 0)] as const)
					.filter(([, n]) => n > 0),
			);
			h.log(`requests of one quiet check of each workflow: ${JSON.stringify(quiet)}`);
			assert.deepEqual(quiet, { 'GET /v1/webhooks/:id': 2, 'GET /v1/stock/mouvements': 1 });

			const last = await crossing(h, 'last');
			for (const side of SIDES) tally[side].runs.push({ ref: last.ref, caughtUp: false });
			// The replacement's note, in the next item.
			if (replaced) tally.off.restores += 1;
			await expectTally(h, tally);
		}),
		10 * MINUTE,
	);
}
