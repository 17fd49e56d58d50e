/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Event identity where the ERP puts it (the credential's Event Identity Paths), and the warnings
// that say when catch-up cannot keep an event to one run: a delivery without an identity, and a
// delivery received by a process that does not run the workflow's triggers. Through n8n-core, as
// catch-up.test.ts; n8n's log is the logger n8n-core gives the node (spied on).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, it, jest } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import type { SandboxHandle } from '../../sandbox';
import { DEMO_KEYS } from '../../sandbox';
import { DEFAULT_LIMITS, TriggerMemory } from '../../nodes/ErpTrigger/memory';
import { firstRun, TRIM_SLACK } from '../../nodes/ErpTrigger/ranEvents';
import { TestCredentials } from '../harness';
import { activate } from './process';
import { expectCount } from '../e2e/count';
import { api, signedDelivery, startDeliveringSandbox } from './helpers';
import { newArticle, setStock } from './polling-helpers';
import { pastTheGrace, publishWithWebhook, runCount } from './published';

const coreRequire = createRequire(require.resolve('n8n-core'));
const { Container } = coreRequire('@n8n/di') as { Container: { get(type: unknown): unknown } };
const { Logger } = coreRequire('@n8n/backend-common') as { Logger: unknown };

let sandbox: SandboxHandle;
let plain: TestCredentials;
let custom: TestCredentials;

beforeAll(async () => {
	sandbox = await startDeliveringSandbox();
	const erpApi = { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl };
	plain = new TestCredentials({ erpApi });
	custom = new TestCredentials({
		erpApi: {
			...erpApi,
			customConventions: true,
			eventIdentityPaths: 'vente.creee=id, facture.payee=id, stock.bas=movement.ref',
		},
	});
});
afterAll(async () => {
	await sandbox.close();
});
afterEach(() => {
	jest.useRealTimers();
	jest.restoreAllMocks();
});

const QUIET = { deadlineMs: 5_000, quietMs: 300, pollMs: 20 };

/** The warnings n8n's log receives from now on. */
function warnings(): () => string[] {
	const logger = Container.get(Logger) as { warn(message: string): void };
	const spy = jest.spyOn(logger, 'warn');
	return () => spy.mock.calls.map(([message]) => String(message));
}

describe('event identity', () => {
	it('Event Identity Paths: a late delivery whose identity is where the credential says is the caught-up event (no run); without it, it runs, with one warning', async () => {
		const p = await publishWithWebhook({
			workflowId: 'ci-custom',
			parameters: { authentication: 'apiKey', events: ['stock.bas'], options: { checkMinutes: 1 } },
			credentials: custom,
		});
		const logged = warnings();
		assert.equal(
			(await api(sandbox, 'DELETE', `/webhooks/${String(p.hook.staticData.webhookId)}`)).status,
			204,
		);
		const article = await newArticle(sandbox, { stock: 20, seuil_alerte: 10 });
		await setStock(sandbox, article.id, 5);
		pastTheGrace();
		await p.trigger.tick();
		const [caught] = (await expectCount('caught up', 1, runCount(p), QUIET)) ?? [];
		const secret = String(p.trigger.liveState.webhookSecret);
		const delivered = (data: IDataObject) =>
			p.hook.deliver(signedDelivery(secret, { type: 'stock.bas', data }));

		const late = await delivered({ article_id: article.id, movement: { ref: caught.id } });
		assert.deepEqual(late.body, { received: true, ignored: 'already_run' });
		await expectCount('runs after the late delivery', 1, runCount(p), QUIET);

		// The control: the identity is not where the credential says, so it cannot be matched.
		await delivered({ article_id: article.id, mouvement_id: caught.id });
		await delivered({ article_id: article.id, mouvement_id: caught.id });
		await expectCount('runs of deliveries without an identity', 3, runCount(p), QUIET);
		const about = logged().filter((message) => message.includes('has no identity'));
		assert.equal(about.length, 1, 'logged once per node and process');
		assert.match(
			about[0],
			/^ERP Trigger \(workflow ci-custom, node "ERP Trigger"\): a stock\.bas delivery has no identity at data\.movement\.ref, so Catch Up Missed Events may run that event again\. Set the identity's path in the credential's Custom API Conventions \(Event Identity Paths\), or turn Catch Up Missed Events off\.$/,
		);
	});

	it("a delivery received where the workflow's triggers do not run: its own run, kept once in this process, and one warning", async () => {
		const logged = warnings();
		const hook = await activate({
			parameters: { authentication: 'apiKey', events: ['*'] },
			credentials: plain,
			workflowId: 'ci-not-live',
		});
		const secret = String(hook.staticData.webhookSecret);
		const sale = () =>
			hook.deliver(signedDelivery(secret, { type: 'vente.creee', data: { id: 'fac_ci_1' } }));
		assert.equal((await sale()).items?.length, 1, "webhook()'s own run");
		const twice = await sale();
		assert.deepEqual(twice.body, { received: true, ignored: 'already_run' });
		assert.equal(twice.items, undefined);
		const payroll = await hook.deliver(
			signedDelivery(secret, { type: 'paie.validee', data: { periode: '2026-11' } }),
		);
		assert.equal(payroll.items?.length, 1, 'an event no list shows needs no identity');
		const about = logged().filter((message) => message.includes('ci-not-live'));
		assert.equal(about.length, 1, 'logged once per node and process');
		assert.equal(
			about[0],
			`ERP Trigger (workflow ci-not-live, node "ERP Trigger"): a delivery was received by an n8n process that does not run this workflow's triggers (a queue-mode webhook processor, or n8n still starting), so Catch Up Missed Events cannot see it and may run that event again. Where webhook processors receive the deliveries, turn Catch Up Missed Events off.`,
		);
		await hook.deactivate();
	});

	it('the memory keeps the newest 10,000 identities per node (saved: trimmed back to them past 11,000), the oldest forgotten first', () => {
		const MAX_RAN_EVENTS = DEFAULT_LIMITS.maxRanEvents;
		const memory = new TriggerMemory().node('ci-bound');
		const saved: IDataObject = {};
		const total = MAX_RAN_EVENTS + TRIM_SLACK;
		for (let k = 0; k < total; k++) {
			assert.equal(firstRun(memory, `stock.bas:mvt_${k}`, saved), true);
		}
		assert.equal(Object.keys(saved.ranEvents as IDataObject).length, total);
		assert.equal(firstRun(memory, `stock.bas:mvt_${total}`, saved), true);
		const kept = Object.keys(saved.ranEvents as IDataObject);
		assert.equal(kept.length, MAX_RAN_EVENTS);
		assert.equal(kept[0], `stock.bas:mvt_${total + 1 - MAX_RAN_EVENTS}`);
		assert.equal(firstRun(memory, `stock.bas:mvt_${total}`, saved), false);
		// Forgotten in both memories: it would run again (the bound the docs state).
		assert.equal(firstRun(memory, 'stock.bas:mvt_0', saved), true);
	});
});
