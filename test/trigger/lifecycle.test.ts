/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The registration lifecycle of the ERP Trigger against the sandbox, through the harness's
// activation (checkExists, then create) and deactivation (delete), as n8n runs them.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS, DEMO_OAUTH_CLIENT, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials, activateTrigger, connectOAuth2 } from '../harness';
import { startRecordingServer } from '../harness/fixtures';
import { api, control, listWebhooks, newSecret, waitFor } from './helpers';

let sandbox: SandboxHandle;
let credentials: TestCredentials;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED });
	credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
});
afterAll(async () => {
	await sandbox.close();
});

const activate = (
	workflowId: string,
	events: string[],
	extra: IDataObject = {},
	webhookUrl?: string,
) =>
	activateTrigger({
		parameters: { authentication: 'apiKey', events, ...extra },
		credentials,
		workflowId,
		webhookUrl,
	});

const registrationsFor = async (url: string) =>
	(await listWebhooks(sandbox)).filter((hook) => hook.url === url);
const getWebhook = (id: unknown) => api(sandbox, 'GET', `/webhooks/${String(id)}`);

describe('automatic registration', () => {
	it('creates one registration with the URL and events, and keeps id, secret, events and URL in static data', async () => {
		const trigger = await activate('lc-create', ['vente.creee', 'facture.payee', 'vente.creee']);
		const hooks = await registrationsFor(trigger.webhookUrl);
		assert.equal(hooks.length, 1);
		const [hook] = hooks;
		assert.deepEqual([...(hook.events as string[])].sort(), ['facture.payee', 'vente.creee']);
		assert.equal(hook.status, 'active');
		assert.match(String(hook.description), /n8n workflow lc-create/);

		const data = trigger.staticData;
		assert.equal(data.webhookId, hook.id);
		assert.match(String(data.webhookSecret), /^whsec_[A-Za-z0-9+/]{43}=$/);
		assert.deepEqual(data.webhookEvents, ['facture.payee', 'vente.creee']);
		assert.equal(data.webhookUrl, trigger.webhookUrl);
		await trigger.deactivate();
	});

	it('reuses its registration when activated again with the same URL and events', async () => {
		const first = await activate('lc-reuse', ['stock.bas']);
		const { webhookId, webhookSecret } = first.staticData;
		const second = await activate('lc-reuse', ['stock.bas']);
		assert.equal(second.webhookUrl, first.webhookUrl);
		assert.equal(second.staticData.webhookId, webhookId);
		assert.equal(second.staticData.webhookSecret, webhookSecret);
		assert.equal((await registrationsFor(first.webhookUrl)).length, 1);
		assert.equal(await second.checkExists(), true);
		await second.deactivate();
	});

	it('recovers cleanly after the registration was deleted on the ERP side', async () => {
		const first = await activate('lc-recover', ['vente.creee']);
		const oldId = first.staticData.webhookId;
		assert.equal((await api(sandbox, 'DELETE', `/webhooks/${String(oldId)}`)).status, 204);

		assert.equal(await first.checkExists(), false);
		assert.equal(first.staticData.webhookId, undefined, 'a registration that is gone is forgotten');
		const second = await activate('lc-recover', ['vente.creee']);
		const hooks = await registrationsFor(first.webhookUrl);
		assert.equal(hooks.length, 1);
		assert.notEqual(hooks[0].id, oldId);
		assert.equal(second.staticData.webhookId, hooks[0].id);
		assert.notEqual(second.staticData.webhookSecret, undefined);
		await second.deactivate();
	});

	it('follows a changed event selection: the old registration is deleted and a new one made', async () => {
		const first = await activate('lc-change', ['vente.creee']);
		const oldId = first.staticData.webhookId;
		const second = await activate('lc-change', ['vente.creee', 'tva.declaree']);
		assert.equal((await getWebhook(oldId)).status, 404);
		const hooks = await registrationsFor(first.webhookUrl);
		assert.equal(hooks.length, 1);
		assert.deepEqual([...(hooks[0].events as string[])].sort(), ['tva.declaree', 'vente.creee']);
		assert.deepEqual(second.staticData.webhookEvents, ['tva.declaree', 'vente.creee']);

		// "All Events" is registered as "*" alone.
		const third = await activate('lc-change', ['tva.declaree', '*']);
		const all = await registrationsFor(first.webhookUrl);
		assert.equal(all.length, 1);
		assert.deepEqual(all[0].events, ['*']);
		await third.deactivate();
	});

	it('replaces its registration when the ERP disabled it (the receiver once answered 410)', async () => {
		const gone = await startRecordingServer(() => ({ status: 410 }));
		try {
			const url = `${gone.url}/webhook/lc-disabled/erp`;
			const first = await activate('lc-disabled', ['tva.declaree'], {}, url);
			const oldId = first.staticData.webhookId;
			await control(sandbox, 'POST', '/events', { type: 'tva.declaree', data: {} });
			await waitFor(
				'the ERP to disable the registration',
				async () => (await getWebhook(oldId)).body.status === 'disabled',
			);

			const second = await activate('lc-disabled', ['tva.declaree'], {}, url);
			assert.equal((await getWebhook(oldId)).status, 404);
			const hooks = await registrationsFor(url);
			assert.deepEqual(
				hooks.map((hook) => [hook.id, hook.status]),
				[[second.staticData.webhookId, 'active']],
			);
			await second.deactivate();
		} finally {
			await gone.close();
		}
	});

	it("never deletes a registration for another URL, such as the production one while the editor's test URL listens", async () => {
		const production = 'http://127.0.0.1:5678/webhook/lc-test-url/erp';
		const testUrl = 'http://127.0.0.1:5678/webhook-test/lc-test-url/erp';
		const active = await activate('lc-test-url', ['vente.creee'], {}, production);
		const productionId = active.staticData.webhookId;
		const listening = await activate('lc-test-url', ['vente.creee'], {}, testUrl);
		assert.equal(
			(await getWebhook(productionId)).status,
			200,
			'the production registration is untouched',
		);
		assert.equal((await registrationsFor(testUrl)).length, 1);
		assert.notEqual(listening.staticData.webhookId, productionId);
		await listening.deactivate();
		assert.equal((await getWebhook(productionId)).status, 200);
		await api(sandbox, 'DELETE', `/webhooks/${String(productionId)}`);
	});

	it('replaces a registration with its URL that it holds no secret for, found on a later page of the list', async () => {
		const url = 'http://127.0.0.1:5678/webhook/lc-orphan/erp';
		// 100 other registrations first, so that the orphan is on the second page of 100.
		for (let i = 0; i < 100; i++) {
			const created = await api(sandbox, 'POST', '/webhooks', {
				url: `http://127.0.0.1:9/other/${i}`,
				events: ['stock.bas'],
			});
			assert.equal(created.status, 201);
		}
		const orphan = await api(sandbox, 'POST', '/webhooks', { url, events: ['vente.creee'] });
		assert.equal(orphan.status, 201);

		const trigger = await activate('lc-orphan', ['vente.creee'], {}, url);
		assert.equal((await getWebhook(orphan.body.id)).status, 404, 'the orphan is deleted');
		const hooks = await registrationsFor(url);
		assert.equal(hooks.length, 1);
		assert.equal(trigger.staticData.webhookId, hooks[0].id);
		assert.equal(
			(await listWebhooks(sandbox)).filter((h) => String(h.url).includes('/other/')).length,
			100,
			'others untouched',
		);
		await trigger.deactivate();
		for (const hook of await listWebhooks(sandbox))
			await api(sandbox, 'DELETE', `/webhooks/${String(hook.id)}`);
	});

	it('deletes its registration and clears its static data when deactivated, also when already gone', async () => {
		const trigger = await activate('lc-delete', ['facture.payee']);
		const id = trigger.staticData.webhookId;
		await trigger.deactivate();
		assert.equal((await getWebhook(id)).status, 404);
		assert.equal((await registrationsFor(trigger.webhookUrl)).length, 0);
		for (const key of ['webhookId', 'webhookSecret', 'webhookEvents', 'webhookUrl']) {
			assert.equal(trigger.staticData[key], undefined, key);
		}

		const again = await activate('lc-delete', ['facture.payee']);
		await api(sandbox, 'DELETE', `/webhooks/${String(again.staticData.webhookId)}`);
		await again.deactivate(); // the 404 counts as deleted
		assert.equal(again.staticData.webhookId, undefined);
	});

	it('refuses to activate with no event selected, and registers nothing', async () => {
		const before = (await listWebhooks(sandbox)).length;
		await assert.rejects(activate('lc-empty', []), /Select at least one event/);
		assert.equal((await listWebhooks(sandbox)).length, before);
	});

	it('fails with the missing scope when the key may not read an event (paie.validee needs paie:read)', async () => {
		const readonly = new TestCredentials({
			erpApi: { apiKey: DEMO_KEYS.readonly, environment: 'sandbox', baseUrl: sandbox.baseUrl },
		});
		const before = (await listWebhooks(sandbox)).length;
		await assert.rejects(
			activateTrigger({
				parameters: { events: ['paie.validee'] },
				credentials: readonly,
				workflowId: 'lc-scope',
			}),
			(error: Error & { description?: string }) => {
				assert.match(`${error.message} ${error.description ?? ''}`, /paie:read/);
				return true;
			},
		);
		assert.equal((await listWebhooks(sandbox)).length, before);
	});
});

describe('OAuth2 credential', () => {
	it('registers through the OAuth2 token, and an event outside the granted scopes names the scope needed', async () => {
		// The credential's default, least-privilege scopes: articles:read clients:read factures:read.
		const oauth = new TestCredentials({
			erpOAuth2Api: {
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				clientId: DEMO_OAUTH_CLIENT.clientId,
				clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
			},
		});
		await connectOAuth2(oauth);
		const parameters = { authentication: 'oAuth2', events: ['vente.creee', 'stock.bas'] };
		const trigger = await activateTrigger({
			parameters,
			credentials: oauth,
			workflowId: 'lc-oauth',
		});
		assert.equal((await registrationsFor(trigger.webhookUrl)).length, 1);
		await trigger.deactivate();
		assert.equal((await registrationsFor(trigger.webhookUrl)).length, 0);

		await assert.rejects(
			activateTrigger({
				parameters: { authentication: 'oAuth2', events: ['tva.declaree'] },
				credentials: oauth,
				workflowId: 'lc-oauth-vat',
			}),
			(error: Error & { description?: string }) => {
				assert.match(`${error.message} ${error.description ?? ''}`, /compta:read/);
				return true;
			},
		);
	});
});

describe('options', () => {
	it('refuses to activate with an invalid option set through an expression, naming it, and registers nothing', async () => {
		const before = (await listWebhooks(sandbox)).length;
		await assert.rejects(
			activate('lc-options-tolerance', ['vente.creee'], { options: { toleranceSeconds: 'abc' } }),
			/Invalid value for "Signature Tolerance \(Seconds\)"/,
		);
		await assert.rejects(
			activate('lc-options-headers', ['vente.creee'], { options: { includeHeaders: 'perhaps' } }),
			/Invalid value for "Include Headers"/,
		);
		assert.equal((await listWebhooks(sandbox)).length, before);
	});
});

describe('manual registration', () => {
	it('refuses to activate without a webhook secret in the credential, and says to set it', async () => {
		const before = (await listWebhooks(sandbox)).length;
		await assert.rejects(
			activate('lc-manual-none', ['vente.creee'], { registration: 'manual' }),
			(error: Error & { description?: string }) => {
				assert.match(error.message, /Webhook Secret/);
				assert.match(String(error.description), /never accepts unsigned events/);
				return true;
			},
		);
		const malformed = new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				webhookSecret: 'not a secret',
			},
		});
		await assert.rejects(
			activateTrigger({
				parameters: { events: ['vente.creee'], registration: 'manual' },
				credentials: malformed,
				workflowId: 'lc-manual-bad',
			}),
			/Webhook Secret/,
		);
		const mismatched = new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'production',
				baseUrl: sandbox.baseUrl,
				webhookSecret: newSecret(),
			},
		});
		await assert.rejects(
			activateTrigger({
				parameters: { events: ['vente.creee'], registration: 'manual' },
				credentials: mismatched,
				workflowId: 'lc-manual-mismatch',
			}),
			/sandbox key \(sk_test_\) but the credential's Environment is Production/,
		);
		assert.equal((await listWebhooks(sandbox)).length, before, 'manual mode never registers');
	});

	it('activates with a secret without registering anything, and removes a registration left from automatic mode', async () => {
		const auto = await activate('lc-manual-switch', ['vente.creee']);
		const autoId = auto.staticData.webhookId;
		const manualCredentials = new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				webhookSecret: newSecret(),
			},
		});
		const manual = await activateTrigger({
			parameters: { events: ['vente.creee'], registration: 'manual' },
			credentials: manualCredentials,
			workflowId: 'lc-manual-switch',
		});
		assert.equal((await getWebhook(autoId)).status, 404);
		assert.equal((await registrationsFor(manual.webhookUrl)).length, 0);
		assert.equal(manual.staticData.webhookId, undefined);
		assert.equal(manual.staticData.webhookSecret, undefined, 'the credential secret is not copied');
		assert.equal(await manual.checkExists(), true);
		await manual.deactivate();
	});
});
