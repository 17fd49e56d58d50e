/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The saved ran-events memory keeps only what can still be needed (nodes/ErpTrigger/ranEvents.ts):
// a delivered event until a catch-up read its event type's list to the end from after it ran (and
// 5 minutes more, for the clocks), a caught-up event 72 hours. Through n8n-core as
// catch-up.test.ts (the trigger's static data saved as n8n saves it: at activation and start, and
// when the node emits); the clock the node and the sandbox read (`Date` only) is moved on.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { GRACE_SECONDS } from '../../nodes/ErpTrigger/catchUp';
import { CAUGHT_UP_KEEP_SECONDS, CLOCK_MARGIN_SECONDS } from '../../nodes/ErpTrigger/ranEvents';
import { expectCount } from '../e2e/count';
import { catchUpGround, QUIET } from './catch-up-setup';
import { control, signedDelivery } from './helpers';
import { newArticle, setStock } from './polling-helpers';
import { advanceClock, pastTheGrace, runCount } from './published';
import type { PublishedWithWebhook } from './published';
import { triggerProcess } from './process';

const ground = catchUpGround();
// A test that plays a process with other limits leaves the next one the default limits.
afterEach(() => triggerProcess.restart({}));
const { crossing, deleteRegistration } = ground;

/** Past the grace and the clock margin: what ran before is out of every later read's reach. */
const PAST_THE_MARGIN = GRACE_SECONDS + CLOCK_MARGIN_SECONDS + 1;

/** A published trigger for stock.bas (checks every minute). */
const published = (workflowId: string, options: IDataObject = {}) =>
	ground.published(workflowId, ['stock.bas'], options);

/** The identities in the trigger's saved memory of delivered (or caught-up) events. */
const kept = (p: PublishedWithWebhook, key: 'ranEvents' | 'ranCaughtUp' = 'ranEvents') =>
	Object.keys((p.trigger.liveState[key] ?? {}) as IDataObject);

/** A stock.bas delivery signed with the trigger's current secret (after a restore too). */
const deliver = async (p: PublishedWithWebhook, data: IDataObject) =>
	await p.hook.deliver(
		signedDelivery(String(p.trigger.liveState.webhookSecret), { type: 'stock.bas', data }),
	);

describe('the saved ran-events memory', () => {
	it('after N deliveries, a check that read the list to its end 5 min after they ran forgets them; a restart then repeats nothing', async () => {
		const N = 5;
		const p = await published('cm-forget');
		for (let k = 0; k < N; k++) await crossing();
		await expectCount('runs of the deliveries', N, runCount(p), QUIET);
		assert.equal(kept(p).length, N);

		// A check while their records are younger than the grace: they may still be read.
		await p.trigger.tick();
		assert.equal(kept(p).length, N, 'kept while a catch-up may still read them');

		// The control (the memory as it was: every identity kept): a check that fails to read the
		// journal past the margin moves nothing, so forgets nothing.
		advanceClock(PAST_THE_MARGIN);
		const fault = { kind: 'status', status: 403, methods: ['GET'], paths: ['/stock/mouvements'] };
		assert.equal(
			(await control(ground.sandbox, 'POST', '/faults', { faults: [{ ...fault, count: 1 }] }))
				.status,
			200,
		);
		await p.trigger.tick();
		assert.equal(p.trigger.failures.length, 1, 'the check failed');
		assert.equal(kept(p).length, N, 'a read that did not reach the end forgets nothing');

		// A quiet check that reads to the end: all N are behind its position, forgotten.
		await p.trigger.tick();
		assert.deepEqual(kept(p), []);
		await expectCount('runs after the quiet check', N, runCount(p), QUIET);

		// A restart: the quiet check emitted nothing, so n8n saved neither its position nor the
		// forgetting; the saved position and memory (from the last delivery) go together.
		await p.trigger.restart();
		await p.trigger.tick();
		await expectCount('runs after a restart', N, runCount(p), QUIET);
		assert.deepEqual(kept(p), [], 'forgotten again by that check');

		// The next delivery saves the short memory with the moved position: a restart repeats
		// nothing either.
		await crossing();
		await expectCount('runs of the next delivery', N + 1, runCount(p), QUIET);
		assert.equal(kept(p).length, 1);
		await p.trigger.restart();
		pastTheGrace();
		await p.trigger.tick();
		await expectCount('runs after the second restart', N + 1, runCount(p), QUIET);
		assert.equal(kept(p).length, 1, 'ran after the check read to: still needed');
	});

	it('a check stopped by the page cap (10 pages) forgets nothing; the check that reaches the end does', async () => {
		const p = await published('cm-page-cap');
		await deliver(p, { article_id: 'art_cap', mouvement_id: 'mvt_cap_delivered' });
		await expectCount('runs of the delivery', 1, runCount(p), QUIET);
		// Past the margin, more than 10 pages of 100 new movements (no crossing: 50 and 51, alert 10).
		advanceClock(PAST_THE_MARGIN);
		const article = await newArticle(ground.sandbox, { stock: 50, seuil_alerte: 10 });
		for (let k = 1; k <= 1_100; k++) await setStock(ground.sandbox, article.id, 50 + (k % 2));
		await p.trigger.tick();
		assert.equal(kept(p).length, 1, 'capped, every record younger than the grace: kept');
		pastTheGrace();
		await p.trigger.tick();
		assert.equal(kept(p).length, 1, 'capped, 1,000 records read: kept');
		await p.trigger.tick();
		assert.deepEqual(kept(p), [], 'read to the end: forgotten');
		await expectCount('runs', 1, runCount(p), QUIET);
	});

	it('a caught-up event is kept 72 h: a late retry in them is answered already_run; after them it is forgotten and a retry runs again (the bound)', async () => {
		// A process that keeps no ran event in memory (maxRanEvents 0): only the saved memory can tell.
		triggerProcess.restart({ maxRanEvents: 0 });
		const p = await published('cm-72h');
		await deleteRegistration(p.webhookId);
		await crossing();
		pastTheGrace();
		await p.trigger.tick();
		const [caught] = (await expectCount('caught up', 1, runCount(p), QUIET)) ?? [];
		assert.equal(caught.caught_up, true);
		assert.deepEqual(kept(p, 'ranCaughtUp'), [`stock.bas:${String(caught.id)}`]);
		assert.deepEqual(kept(p), [], 'not among the delivered events');

		advanceClock(CAUGHT_UP_KEEP_SECONDS - 3600);
		await p.trigger.tick();
		assert.deepEqual(kept(p, 'ranCaughtUp'), [`stock.bas:${String(caught.id)}`], 'kept 71 h');
		const late = await deliver(p, caught.data as IDataObject);
		assert.deepEqual(late.body, { received: true, ignored: 'already_run' });
		await expectCount('runs after a late retry within 72 h', 1, runCount(p), QUIET);

		advanceClock(2 * 3600);
		await p.trigger.tick();
		assert.deepEqual(kept(p, 'ranCaughtUp'), [], 'forgotten after 72 h');
		const later = await deliver(p, caught.data as IDataObject);
		assert.equal(later.status, 200);
		await expectCount('runs after a retry past 72 h', 2, runCount(p), QUIET);
	});

	it('size: the static data after 1,000 deliveries, then after a check that read to the end past the margin', async () => {
		const p = await published('cm-size');
		const N = 1_000;
		for (let k = 0; k < N; k++) {
			const answer = await deliver(p, { article_id: 'art_size', mouvement_id: `mvt_size_${k}` });
			assert.equal(answer.status, 200);
		}
		await expectCount('runs of the deliveries', N, runCount(p), { ...QUIET, deadlineMs: 30_000 });
		const full = JSON.stringify(p.trigger.liveState).length;
		assert.equal(kept(p).length, N, 'the control: before the check, every identity is kept');
		assert.ok(full > N * 30, `${full} bytes with ${N} identities`);

		advanceClock(PAST_THE_MARGIN);
		await p.trigger.tick();
		const after = JSON.stringify(p.trigger.liveState).length;
		assert.deepEqual(kept(p), []);
		assert.ok(after < 1_000, `${after} bytes after the check (${full} before)`);
	});

	it('with Catch Up Missed Events off, the saved data holds no memory and no positions; turned on again, it starts from now', async () => {
		const on = await published('cm-off');
		await crossing();
		await expectCount('runs with catch-up on', 1, runCount(on), QUIET);
		assert.equal(kept(on).length, 1);
		await on.hook.deactivate();

		const off = await published('cm-off', { catchUp: false });
		const state = () =>
			['catchUp', 'ranEvents', 'ranCaughtUp'].filter((key) => key in off.trigger.liveState);
		assert.deepEqual(state(), [], 'dropped at activation');
		await crossing();
		await expectCount('runs with catch-up off', 1, runCount(off), QUIET);
		assert.equal(
			off.listener.runs.length,
			1,
			"run by webhook() (the trigger's static data unused)",
		);
		assert.deepEqual(state(), [], 'nothing recorded');
		await off.hook.deactivate();

		// On again: the event that ran while it was off is not read again (no saved position).
		const again = await published('cm-off');
		pastTheGrace();
		await again.trigger.tick();
		await expectCount('runs after catch-up is on again', 0, runCount(again), QUIET);
	});
});
