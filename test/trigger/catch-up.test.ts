/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Catch-up: the ERP Trigger emits, once each, the events the webhook missed, read from the ERP's
// lists at each registration check; an event that came both ways runs once. Through n8n-core: the
// webhook side by the harness's activateTrigger (real deliveries from the sandbox over loopback
// HTTP), the trigger side by publishTrigger (TriggerContext, static data saved as n8n saves it:
// at activation and start, and when the node emits). Records younger than the grace (60 s) wait,
// so the tests move the clock the node and the sandbox read (`Date` only) past it.
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS } from '../../sandbox';
import { RAN_CAUGHT_UP_KEY, RAN_EVENTS_KEY } from '../../nodes/ErpTrigger/ranEvents';
import { TestCredentials } from '../harness';
import { activate } from './process';
import { loadStaticData, saveStaticData } from '../harness/additional-data';
import { expectCount } from '../e2e/count';
import { catchUpGround, QUIET } from './catch-up-setup';
import { control, signedDelivery } from './helpers';
import { newClient, newInvoice, requestsDuring } from './polling-helpers';
import { pastTheGrace, publishTrigger, publishWithWebhook, runCount } from './published';

const ground = catchUpGround();
const { crossing, deleteRegistration, published } = ground;

/** The stock.bas events the sandbox emitted for these articles (their data), in order. */
async function crossingsOf(...articles: IDataObject[]): Promise<IDataObject[]> {
	const events = (await control(ground.sandbox, 'GET', '/events?type=stock.bas')).body
		.data as IDataObject[];
	return events
		.map((event) => event.data as IDataObject)
		.filter((data) => articles.some((article) => article.id === data.article_id));
}

describe('catch-up', () => {
	it('after a gap (registration deleted), the next check restores it and runs each missed event once, in order, marked caught_up; a restart repeats nothing', async () => {
		const p = await published('cu-gap', ['stock.bas', 'vente.creee']);
		await deleteRegistration(p.webhookId);
		const a = await crossing();
		const client = await newClient(ground.sandbox);
		const invoice = await newInvoice(ground.sandbox, client.id, a.id, 1);
		const b = await crossing();
		await expectCount('runs while the registration is gone', 0, runCount(p), QUIET);

		pastTheGrace();
		await p.trigger.tick();
		const items = (await expectCount('runs after the check', 3, runCount(p), QUIET)) ?? [];
		assert.deepEqual(p.listener.runs, [], 'none came by webhook');
		const expected = await crossingsOf(a, b);
		assert.deepEqual(
			items.map((item) => [item.type, item.id, item.caught_up]),
			[
				// In a fixed order of event types, each in list order.
				['stock.bas', expected[0].mouvement_id, true],
				['stock.bas', expected[1].mouvement_id, true],
				['vente.creee', invoice.id, true],
			],
		);
		assert.deepEqual(items[0].data, expected[0], 'the stock.bas event data, mouvement_id included');
		assert.equal((items[0].registration as IDataObject).reason, 'gone', 'the restore is reported');

		await p.trigger.tick();
		await expectCount('runs after the next check', 3, runCount(p), QUIET);
		// A new process from the saved static data: the positions moved after the emits were not
		// saved (no emit since), so the lists are read again; the saved identities say they ran.
		await p.trigger.restart();
		const read = await requestsDuring(ground.sandbox, () => p.trigger.tick());
		assert.ok(read['GET /v1/stock/mouvements'] >= 1, JSON.stringify(read));
		await expectCount('runs after a restart', 3, runCount(p), QUIET);

		// The control: without the saved identities, the same restart runs again what it read again:
		// the invoice (its position moved after the last emit, so was not saved; the journal's
		// position was saved with the invoice's emit).
		const saved = loadStaticData('cu-gap');
		const memory = saved['node:ERP Trigger'] as IDataObject;
		delete memory[RAN_EVENTS_KEY];
		delete memory[RAN_CAUGHT_UP_KEY];
		saveStaticData('cu-gap', saved);
		await p.trigger.restart();
		await p.trigger.tick();
		const again =
			(await expectCount('runs without the saved identities', 4, runCount(p), QUIET)) ?? [];
		assert.deepEqual([again[3].type, again[3].id], ['vente.creee', invoice.id]);
	});

	it('a delivery, then its list-derived twin at the next check: one run', async () => {
		const p = await published('cu-delivery-first', ['stock.bas']);
		await crossing();
		const [item] = (await expectCount('runs of the delivery', 1, runCount(p), QUIET)) ?? [];
		assert.equal(item.caught_up, undefined, 'it came by webhook');
		assert.deepEqual(p.listener.runs, [], "handed to the trigger's emit, not run by webhook()");
		assert.deepEqual(p.trigger.liveState.ranEvents && Object.keys(p.trigger.liveState.ranEvents), [
			`stock.bas:${String((item.data as IDataObject).mouvement_id)}`,
		]);
		pastTheGrace();
		const read = await requestsDuring(ground.sandbox, () => p.trigger.tick());
		assert.equal(read['GET /v1/stock/mouvements'], 1, 'the check read the journal');
		await expectCount('runs after the check', 1, runCount(p), QUIET);
	});

	it('the twin first, then the delivery (a late retry): one run, the delivery answered 200 with no run', async () => {
		const p = await published('cu-twin-first', ['stock.bas']);
		await deleteRegistration(p.webhookId);
		const article = await crossing();
		pastTheGrace();
		await p.trigger.tick();
		await expectCount('runs after the check', 1, runCount(p), QUIET);
		// The ERP's late retry of the same event, signed with the restored registration's secret.
		const [data] = await crossingsOf(article);
		const hook = await activate({
			parameters: { authentication: 'apiKey', events: ['stock.bas'], options: { checkMinutes: 1 } },
			credentials: ground.credentials,
			workflowId: 'cu-twin-first',
			staticData: p.trigger.liveState,
		});
		const late = await hook.deliver(
			signedDelivery(String(p.trigger.liveState.webhookSecret), { type: 'stock.bas', data }),
		);
		assert.equal(late.status, 200);
		assert.deepEqual(late.body, { received: true, ignored: 'already_run' });
		assert.equal(late.items, undefined);
		await expectCount('runs after the late delivery', 1, runCount(p), QUIET);
	});

	it('an event younger than the grace waits for the next check', async () => {
		const p = await published('cu-grace', ['stock.bas']);
		await deleteRegistration(p.webhookId);
		await crossing();
		await p.trigger.tick();
		await expectCount('runs at a check within the grace', 0, runCount(p), QUIET);
		pastTheGrace();
		await p.trigger.tick();
		await expectCount('runs at the next check', 1, runCount(p), QUIET);
	});

	it('a failed catch-up is logged and saved as a failed execution, and the next check catches up from the same position', async () => {
		const p = await published('cu-fails', ['stock.bas']);
		await deleteRegistration(p.webhookId);
		await crossing();
		pastTheGrace();
		const fault = {
			kind: 'status',
			status: 403,
			methods: ['GET'],
			paths: ['/stock/mouvements'],
			count: 1,
		};
		assert.equal(
			(await control(ground.sandbox, 'POST', '/faults', { faults: [fault] })).status,
			200,
		);
		await p.trigger.tick();
		assert.equal(p.trigger.failures.length, 1);
		assert.match(
			String(p.trigger.logs.find((l) => l.level === 'error')?.message),
			/^ERP Trigger: catching up missed stock\.bas events of workflow cu-fails, node "ERP Trigger" failed: /,
		);
		await expectCount('runs after the failed check', 0, runCount(p), QUIET);
		await p.trigger.tick();
		await expectCount('runs after the next check', 1, runCount(p), QUIET);
	});

	it('with manual registration (nothing to check), catch-up runs at the same ticks', async () => {
		const trigger = await publishTrigger({
			workflowId: 'cu-manual',
			parameters: {
				authentication: 'apiKey',
				registration: 'manual',
				events: ['stock.bas'],
				options: { checkMinutes: 1 },
			},
			credentials: ground.credentials,
		});
		await crossing();
		pastTheGrace();
		await trigger.tick();
		await expectCount(
			'caught up',
			1,
			async () => ({ count: trigger.emitted.length, detail: trigger.emitted }),
			QUIET,
		);
		assert.equal(trigger.emitted[0].caught_up, true);
	});

	it('the control: with Catch Up Missed Events off, the missed events never run', async () => {
		const p = await published('cu-off', ['stock.bas'], { catchUp: false });
		await deleteRegistration(p.webhookId);
		await crossing();
		pastTheGrace();
		const read = await requestsDuring(ground.sandbox, () => p.trigger.tick(3));
		assert.equal(read['GET /v1/stock/mouvements'], undefined, 'no list read');
		await expectCount('runs', 0, runCount(p), QUIET);
		// The registration is restored all the same, and the next event runs by webhook().
		await crossing();
		await expectCount('runs of the next event', 1, runCount(p), QUIET);
		assert.equal(p.listener.runs.length, 1);
	});

	it('the control: without identities (an Event Identity Path that finds none in a delivery), a delivery and its twin run twice', async () => {
		const credentials = new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'sandbox',
				baseUrl: ground.sandbox.baseUrl,
				customConventions: true,
				eventIdentityPaths: 'vente.creee=id, facture.payee=id, stock.bas=no_such_field',
			},
		});
		const p = await publishWithWebhook({
			workflowId: 'cu-no-identity',
			parameters: { authentication: 'apiKey', events: ['stock.bas'], options: { checkMinutes: 1 } },
			credentials,
		});
		await crossing();
		await expectCount('runs of the delivery', 1, runCount(p), QUIET);
		pastTheGrace();
		await p.trigger.tick();
		await expectCount('runs after the check', 2, runCount(p), QUIET);
	});
});
