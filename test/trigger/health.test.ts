/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Registration health: the published ERP Trigger checks its registration at activation, at every
// start and every Registration Check Interval, and restores it when the ERP lost it, disabled it,
// or it points elsewhere or has other events. Through n8n-core: the webhook side by the harness's
// activateTrigger (real deliveries from the sandbox over loopback HTTP), the trigger side by
// publishTrigger (n8n-core's TriggerContext, static data saved as n8n saves it).
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEMO_KEYS, sandboxRequests } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { ErpTrigger } from '../../nodes/ErpTrigger/ErpTrigger.node';
import { TriggerMemory } from '../../nodes/ErpTrigger/memory';
import { TestCredentials, loadStaticData, runWorkflow } from '../harness';
import { saveStaticData } from '../harness/additional-data';
import { expectCount } from '../e2e/count';
import { api, control, listWebhooks, startDeliveringSandbox, waitFor } from './helpers';
import {
	listenForTestEvent,
	publishTrigger,
	publishWithWebhook,
	runCount,
	runItems,
} from './published';

let sandbox: SandboxHandle;
let credentials: TestCredentials;

beforeAll(async () => {
	// The sandbox disables a registration after 4 failed attempts in a row (2 events, 2 attempts each).
	sandbox = await startDeliveringSandbox({ failuresToDisable: 4 });
	credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
});
afterAll(async () => {
	await sandbox.close();
});

const QUIET = { deadlineMs: 5_000, quietMs: 500, pollMs: 20 };

/** A published trigger on `stock.bas`: the webhook side listening, then `trigger()` at activation. */
const published = (workflowId: string, options: INodeParameters = {}) =>
	publishWithWebhook({
		workflowId,
		parameters: { authentication: 'apiKey', events: ['stock.bas'], options },
		credentials,
	});

const registrationsAt = async (url: string) =>
	(await listWebhooks(sandbox)).filter((w) => w.url === url);
/** Requests the sandbox logged on /webhooks since `mark` (its log's length then). */
const webhookRequests = async (mark: number) =>
	(await sandboxRequests(sandbox.url)).slice(mark).filter((r) => r.path.startsWith('/v1/webhooks'));
const requestMark = async () => (await sandboxRequests(sandbox.url)).length;
const emitLowStock = async (reference: string) =>
	assert.equal(
		(
			await control(sandbox, 'POST', '/events', {
				type: 'stock.bas',
				data: { article_id: 'art_x', reference, designation: 'x', stock: 1, seuil_alerte: 5 },
			})
		).status,
		200,
	);
type Runs = Parameters<typeof runItems>[0];
const runsOf = runCount;
const itemOf = (runs: Runs, k: number) => runItems(runs)[k];

describe('registration health while published', () => {
	it('a check costs one request, at the first minute and then every Registration Check Interval minutes, and changes nothing when the registration is in place', async () => {
		const { hook, trigger } = await published('hl-ok', { checkMinutes: 3 });
		const id = hook.staticData.webhookId;
		const oneCheck = [`GET /v1/webhooks/${String(id)} 200`];
		const checks = async (mark: number, count: number) =>
			(await expectCount(
				'requests of the checks',
				count,
				async () => {
					const logged = await webhookRequests(mark);
					return { count: logged.length, detail: logged };
				},
				QUIET,
			)) ?? [];
		// None at activation (n8n just ran checkExists and create).
		let mark = await requestMark();
		await trigger.tick();
		const first = await checks(mark, 1);
		assert.deepEqual(
			first.map((r) => `${r.method} ${r.path} ${r.status}`),
			oneCheck,
		);
		mark = await requestMark();
		await trigger.tick(2);
		await checks(mark, 0);
		await trigger.tick();
		const next = await checks(mark, 1);
		assert.deepEqual(
			next.map((r) => `${r.method} ${r.path} ${r.status}`),
			oneCheck,
		);
		assert.equal(trigger.liveState.webhookId, id);
		assert.deepEqual(trigger.failures, []);
		assert.deepEqual(
			trigger.logs.filter((l) => l.level !== 'debug'),
			[],
		);
		await hook.deactivate();
	});

	it('deleted in the ERP while published: nothing runs until the next check restores it, then the next event runs once and reports the restore', async () => {
		const { hook, listener, trigger } = await published('hl-deleted', { checkMinutes: 1 });
		const oldId = hook.staticData.webhookId;
		assert.equal((await api(sandbox, 'DELETE', `/webhooks/${String(oldId)}`)).status, 204);

		// The control: with the registration gone, an event starts nothing.
		await emitLowStock('LOST');
		await expectCount(
			'runs while the registration is gone',
			0,
			runsOf({ listener, trigger }),
			QUIET,
		);

		await trigger.tick();
		const [restored, ...others] = await registrationsAt(hook.webhookUrl);
		assert.deepEqual(others, []);
		assert.notEqual(restored.id, oldId);
		assert.deepEqual(restored.events, ['stock.bas']);
		assert.equal(restored.status, 'active');
		assert.equal(trigger.liveState.webhookId, restored.id);
		const warning = trigger.logs.find((l) => l.level === 'warn');
		assert.match(String(warning?.message), /was restored \(the ERP no longer had it\)/);
		// n8n does not save static data after a tick that starts no run: the delivery is verified
		// with the restored secret this process keeps.
		assert.equal(hook.staticData.webhookId, oldId);

		await emitLowStock('AFTER');
		await expectCount('runs after the restore', 1, runsOf({ listener, trigger }), QUIET);
		const first = itemOf({ listener, trigger }, 0);
		assert.equal((first.data as IDataObject).reference, 'AFTER');
		assert.deepEqual(first.registration, {
			restored_at: (first.registration as IDataObject).restored_at,
			reason: 'gone',
			webhook_id: restored.id,
		});
		await emitLowStock('NEXT');
		await expectCount('runs', 2, runsOf({ listener, trigger }), QUIET);
		assert.equal(itemOf({ listener, trigger }, 1).registration, undefined, 'reported once');
		await hook.deactivate();
	});

	it('disabled by the ERP after failed deliveries: replaced at the next check (the API cannot re-enable it)', async () => {
		const { hook, listener, trigger } = await published('hl-disabled', { checkMinutes: 1 });
		const oldId = String(hook.staticData.webhookId);
		// The receiver "down": every attempt fails; the sandbox disables after 4 in a row.
		await control(sandbox, 'POST', '/deliveries/pause', { seconds: 600 });
		await emitLowStock('DOWN1');
		await emitLowStock('DOWN2');
		await waitFor('the registration disabled', async () => {
			const answer = await api(sandbox, 'GET', `/webhooks/${oldId}`);
			return answer.body.status === 'disabled';
		});
		await control(sandbox, 'POST', '/deliveries/resume');

		await trigger.tick();
		const hooks = await registrationsAt(hook.webhookUrl);
		assert.equal(hooks.length, 1, 'the disabled one deleted, one new');
		assert.notEqual(hooks[0].id, oldId);
		assert.equal(hooks[0].status, 'active');
		await emitLowStock('UP');
		await expectCount('runs', 1, runsOf({ listener, trigger }), QUIET);
		assert.equal((itemOf({ listener, trigger }, 0).registration as IDataObject).reason, 'disabled');
		await hook.deactivate();
	});

	it('pointing to another URL: a new registration for this URL; the other one is left alone', async () => {
		const { hook, listener, trigger } = await published('hl-other-url');
		const elsewhere = await api(sandbox, 'POST', '/webhooks', {
			url: 'http://127.0.0.1:9/elsewhere',
			events: ['stock.bas'],
		});
		const stored = loadStaticData('hl-other-url');
		(stored['node:ERP Trigger'] as IDataObject).webhookId = elsewhere.body.id;
		saveStaticData('hl-other-url', stored);
		// At the start, n8n's checkExists finds it and create registers again.
		await trigger.restart();
		assert.equal((await api(sandbox, 'GET', `/webhooks/${elsewhere.body.id}`)).status, 200);
		const [mine, ...others] = await registrationsAt(hook.webhookUrl);
		assert.deepEqual(others, []);
		assert.equal(trigger.liveState.webhookId, mine.id);
		await emitLowStock('MINE');
		await expectCount('runs', 1, runsOf({ listener, trigger }), QUIET);
		assert.equal((itemOf({ listener, trigger }, 0).registration as IDataObject).reason, 'otherUrl');
		await hook.deactivate();
		await api(sandbox, 'DELETE', `/webhooks/${elsewhere.body.id}`);
	});

	it('with other events: deleted and registered again with this trigger’s events', async () => {
		const { hook, listener, trigger } = await published('hl-other-events');
		const other = await api(sandbox, 'POST', '/webhooks', {
			url: hook.webhookUrl,
			events: ['vente.creee'],
		});
		const stored = loadStaticData('hl-other-events');
		(stored['node:ERP Trigger'] as IDataObject).webhookId = other.body.id;
		saveStaticData('hl-other-events', stored);
		await trigger.restart();
		const [mine, ...others] = await registrationsAt(hook.webhookUrl);
		assert.deepEqual(others, []);
		assert.deepEqual(mine.events, ['stock.bas']);
		assert.equal((await api(sandbox, 'GET', `/webhooks/${other.body.id}`)).status, 404);
		await emitLowStock('MINE');
		await expectCount('runs', 1, runsOf({ listener, trigger }), QUIET);
		assert.equal(
			(itemOf({ listener, trigger }, 0).registration as IDataObject).reason,
			'otherEvents',
		);
		await hook.deactivate();
	});

	it('deleted while n8n was stopped: registered again at start (checkExists, create) and saved; the next event runs once and reports it; a restart repeats nothing', async () => {
		const { hook, listener, trigger } = await published('hl-restart');
		const oldId = hook.staticData.webhookId;
		assert.equal((await api(sandbox, 'DELETE', `/webhooks/${String(oldId)}`)).status, 204);
		const saves = trigger.saves;
		await trigger.restart();
		assert.equal(trigger.saves, saves + 1);
		const [restored] = await registrationsAt(hook.webhookUrl);
		assert.equal(hook.staticData.webhookId, restored.id, 'saved with the start');
		await emitLowStock('BACK');
		await expectCount('runs', 1, runsOf({ listener, trigger }), QUIET);
		assert.equal((itemOf({ listener, trigger }, 0).registration as IDataObject).reason, 'gone');
		await trigger.restart();
		await trigger.tick();
		const [same, ...more] = await registrationsAt(hook.webhookUrl);
		assert.deepEqual(more, []);
		assert.equal(same.id, restored.id, 'a restart repeats nothing');
		await expectCount('runs', 1, runsOf({ listener, trigger }), QUIET);
		await hook.deactivate();
	});

	it.each([
		['begun before the first tick', false],
		['begun after the first tick', true],
	])(
		"n8n 2.41's start registers and runs trigger() at once, the webhook side %s: one registration made",
		async (_, tickFirst) => {
			const { hook, trigger } = await published(`hl-at-once-${String(tickFirst)}`, {
				catchUp: false,
			});
			const oldId = hook.staticData.webhookId;
			assert.equal((await api(sandbox, 'DELETE', `/webhooks/${String(oldId)}`)).status, 204);
			const mark = await requestMark();
			await trigger.restartAtOnce({ tickFirst });
			const found = await registrationsAt(hook.webhookUrl);
			assert.equal(found.length, 1, `one registration: ${JSON.stringify(found)}`);
			assert.equal(hook.staticData.webhookId, found[0].id, 'saved with the start');
			const asked = (await webhookRequests(mark)).map((r) => `${r.method} ${r.path}`);
			assert.equal(asked.filter((r) => r.startsWith('POST')).length, 1, asked.join(', '));
			await trigger.tick();
			assert.deepEqual(
				(await registrationsAt(hook.webhookUrl)).map((r) => r.id),
				[found[0].id],
				'the next check keeps it',
			);
			await hook.deactivate();
		},
	);

	it("the editor's Listen for test event on a published trigger: the production registration is kept and no restore is reported", async () => {
		const { hook, listener, trigger } = await published('hl-test-url');
		const production = hook.staticData.webhookId;
		const testUrl = await listenForTestEvent({
			workflowId: 'hl-test-url',
			parameters: { authentication: 'apiKey', events: ['stock.bas'] },
			credentials,
		});
		assert.match(testUrl, /\/webhook-test\//);
		assert.equal((await api(sandbox, 'GET', `/webhooks/${String(production)}`)).status, 200);
		assert.equal((await registrationsAt(testUrl)).length, 1);
		await emitLowStock('PROD');
		await expectCount('runs', 1, runsOf({ listener, trigger }), QUIET);
		assert.equal(itemOf({ listener, trigger }, 0).registration, undefined);
		for (const test of await registrationsAt(testUrl)) {
			await api(sandbox, 'DELETE', `/webhooks/${String(test.id)}`);
		}
		await hook.deactivate();
	});

	it('a check that fails is logged and saved as a failed execution, and does not stop the trigger', async () => {
		const { hook, trigger: ok } = await published('hl-fails');
		const refused = new TestCredentials({
			erpApi: {
				// A key the ERP does not know: every request answers 401.
				apiKey: `${DEMO_KEYS.full}_revoked`,
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
			},
		});
		const trigger = await publishTrigger({
			workflowId: 'hl-fails',
			// The check alone (a failed catch-up is reported the same way: catch-up.test.ts).
			parameters: { authentication: 'apiKey', events: ['stock.bas'], options: { catchUp: false } },
			credentials: refused,
		});
		await trigger.tick();
		assert.equal(trigger.failures.length, 1);
		assert.match(trigger.failures[0].message, /.+/);
		assert.match(String(trigger.logs.find((l) => l.level === 'error')?.message), /failed/);
		assert.deepEqual(ok.failures, []);
		await hook.deactivate();
	});

	it('manual registration: nothing to check, no request', async () => {
		const mark = await requestMark();
		const trigger = await publishTrigger({
			workflowId: 'hl-manual',
			parameters: { authentication: 'apiKey', registration: 'manual', events: ['stock.bas'] },
			credentials,
		});
		await trigger.tick(15);
		assert.deepEqual(await webhookRequests(mark), []);
	});
});

describe('a test run ("Listen for test event")', () => {
	const node = {
		name: 'ERP Trigger',
		type: 'n8n-nodes-erp.erpTrigger',
		parameters: { authentication: 'apiKey', events: ['stock.bas'] },
	};

	it('emits the test delivery that webhook() accepted, as n8n runs the node in manual mode', async () => {
		const item = { id: 'evt_test', type: 'stock.bas', created_at: null, data: { stock: 1 } };
		// What webhook() left in the node's memory after accepting a test delivery (webhook.ts, handOver).
		const memory = new TriggerMemory();
		memory.node('hl-test-run/harness-node-0').testDelivery = [[{ json: item }]];
		const result = await runWorkflow({
			nodes: [node],
			credentials,
			workflowId: 'hl-test-run',
			extraNodeTypes: { [node.type]: new ErpTrigger(memory) },
		});
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(result.output('ERP Trigger'), [item]);
	});

	it('the control: without a test delivery the manual trigger fails, saying what to do', async () => {
		const result = await runWorkflow({ nodes: [node], credentials, workflowId: 'hl-no-test' });
		assert.equal(result.success, false);
		assert.match(String(result.error?.message), /No test event was received/);
	});
});
