/* eslint-disable @n8n/community-nodes/no-restricted-imports */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, test } from '@jest/globals';

import type {
	ICredentialType,
	IDataObject,
	IHookFunctions,
	INodeType,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { startRecordingServer } from './fixtures';
import type { RecordingServer } from './fixtures';
import { TestCredentials, activateTrigger } from './index';

const hookApi: ICredentialType = {
	name: 'hookApi',
	displayName: 'Hook API',
	properties: [
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		{ displayName: 'Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
	],
	authenticate: { type: 'generic', properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } } },
};

const TRIGGER = 'test.hookTrigger';
let webhookCalls = 0;

/** A minimal signed-webhook trigger: registers itself, checks an HMAC of the raw body, dedupes ids. */
const hookTrigger: INodeType = {
	description: {
		displayName: 'Hook Trigger',
		name: 'hookTrigger',
		group: ['trigger'],
		version: 1,
		description: '',
		defaults: { name: 'Hook Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hookApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [{ displayName: 'Events', name: 'events', type: 'string', default: '*' }],
	},
	webhookMethods: {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				if (!data.hookId) return false;
				const { baseUrl } = await this.getCredentials('hookApi');
				try {
					await this.helpers.httpRequestWithAuthentication.call(this, 'hookApi', {
						url: `${String(baseUrl)}/hooks/${String(data.hookId)}`,
						json: true,
					});
					return true;
				} catch {
					return false;
				}
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const { baseUrl } = await this.getCredentials('hookApi');
				const answer = (await this.helpers.httpRequestWithAuthentication.call(this, 'hookApi', {
					method: 'POST',
					url: `${String(baseUrl)}/hooks`,
					body: { url: this.getNodeWebhookUrl('default') },
					json: true,
				})) as { id: string; secret: string };
				const data = this.getWorkflowStaticData('node');
				data.hookId = answer.id;
				data.secret = answer.secret;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				const { baseUrl } = await this.getCredentials('hookApi');
				await this.helpers.httpRequestWithAuthentication.call(this, 'hookApi', {
					method: 'DELETE',
					url: `${String(baseUrl)}/hooks/${String(data.hookId)}`,
				});
				delete data.hookId;
				delete data.secret;
				return true;
			},
		},
	},
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		webhookCalls += 1;
		const req = this.getRequestObject();
		const data = this.getWorkflowStaticData('node');
		const id = String(req.headers['webhook-id']);
		const expected = createHmac('sha256', String(data.secret)).update(`${id}.`).update(req.rawBody).digest('hex');
		if (req.headers['webhook-signature'] !== expected) {
			this.getResponseObject().status(401).json({ error: 'bad signature' });
			return { noWebhookResponse: true };
		}
		const seen = (data.seen as string[] | undefined) ?? [];
		if (seen.includes(id)) return { webhookResponse: { duplicate: true } };
		data.seen = [...seen, id];
		const body = this.getBodyData();
		const events = this.getNodeParameter('events') as string;
		if (events !== '*' && events !== body.type) return { webhookResponse: { ignored: true } };
		return { workflowData: [[{ json: body }]] };
	},
};

describe('activateTrigger', () => {
	let erp: RecordingServer;
	const hooks = new Map<string, IDataObject>();
	beforeAll(async () => {
		erp = await startRecordingServer((req) => {
			const [, , id] = req.url.split('/');
			if (req.method === 'POST' && req.url === '/hooks') {
				const hookId = `h${hooks.size + 1}`;
				hooks.set(hookId, { id: hookId, url: JSON.parse(req.body).url, secret: `secret-${hookId}` });
				return { status: 201, body: hooks.get(hookId) };
			}
			if (req.method === 'DELETE') return hooks.delete(id) ? { status: 204 } : { status: 404, body: {} };
			return hooks.has(id) ? { status: 200, body: hooks.get(id) } : { status: 404, body: {} };
		});
	});
	afterAll(async () => await erp.close());
	beforeEach(() => {
		webhookCalls = 0;
	});

	const credentials = () => new TestCredentials({ hookApi: { baseUrl: erp.url, apiKey: 'k1' } }, { types: { hookApi } });
	const activate = (extra: { workflowId?: string; listen?: boolean; events?: string; webhookUrl?: string } = {}) =>
		activateTrigger({
			type: TRIGGER,
			parameters: { events: extra.events ?? '*' },
			credentials: credentials(),
			extraNodeTypes: { [TRIGGER]: hookTrigger },
			workflowId: extra.workflowId,
			listen: extra.listen,
			webhookUrl: extra.webhookUrl,
		});
	const sign = (secret: string, id: string, body: string) =>
		createHmac('sha256', secret).update(`${id}.${body}`).digest('hex');
	const delivery = (secret: string, id: string, body: string, signature = sign(secret, id, body)) => ({
		headers: { 'Content-Type': 'application/json', 'webhook-id': id, 'webhook-signature': signature },
		body,
	});

	test('activation runs checkExists then create, keeps static data, and is idempotent', async () => {
		const handle = await activate({ workflowId: 'wf-activation', webhookUrl: 'https://n8n.example/webhook/abc/webhook' });
		const creates = erp.requests.filter((r) => r.method === 'POST');
		assert.equal(creates.length, 1);
		assert.equal(creates[0].headers.authorization, 'Bearer k1');
		assert.deepEqual(JSON.parse(creates[0].body), { url: 'https://n8n.example/webhook/abc/webhook' });
		assert.equal(handle.webhookUrl, 'https://n8n.example/webhook/abc/webhook');
		const { hookId } = handle.staticData;
		assert.equal(typeof hookId, 'string');
		assert.equal(await handle.checkExists(), true);

		// Activating the same workflow again finds the registration and creates nothing.
		const again = await activate({ workflowId: 'wf-activation' });
		assert.equal(erp.requests.filter((r) => r.method === 'POST').length, 1);
		assert.equal(again.staticData.hookId, hookId);

		await again.deactivate();
		assert.equal(hooks.has(String(hookId)), false);
		assert.deepEqual(handle.staticData, {});
		assert.equal(await handle.checkExists(), false);
	});

	test('seeded static data is what the node sees at activation', async () => {
		const first = await activate({ workflowId: 'wf-seed-source' });
		const before = erp.requests.filter((r) => r.method === 'POST').length;
		const seeded = await activateTrigger({
			type: TRIGGER,
			parameters: { events: '*' },
			credentials: credentials(),
			extraNodeTypes: { [TRIGGER]: hookTrigger },
			staticData: first.staticData,
		});
		assert.equal(erp.requests.filter((r) => r.method === 'POST').length, before);
		assert.equal(seeded.staticData.hookId, first.staticData.hookId);
		await first.deactivate();
	});

	test('the default webhook URL is n8n\'s: base URL, webhook id, path', async () => {
		const handle = await activate({ workflowId: 'wf-url' });
		assert.equal(handle.webhookUrl, 'http://127.0.0.1:5678/webhook/wf-url-webhook/webhook');
		await handle.deactivate();
	});

	test('deliveries: raw body checked, run started, static data persisted, replays and bad signatures refused', async () => {
		const handle = await activate();
		const secret = String(handle.staticData.secret);
		// Whitespace matters for the signature: the node must see the exact bytes.
		const body = '{ "type": "vente.creee",  "n": 1 }';

		const ok = await handle.deliver(delivery(secret, 'evt_1', body));
		assert.equal(ok.status, 200);
		assert.deepEqual(ok.body, { message: 'Workflow was started' });
		assert.deepEqual(
			ok.items?.map((i) => i.json),
			[{ type: 'vente.creee', n: 1 }],
		);
		assert.equal(ok.run?.status, 'success');
		assert.deepEqual(handle.staticData.seen, ['evt_1']);

		const replay = await handle.deliver(delivery(secret, 'evt_1', body));
		assert.equal(replay.status, 200);
		assert.deepEqual(replay.body, { duplicate: true });
		assert.equal(replay.items, undefined);

		const forged = await handle.deliver(delivery(secret, 'evt_2', body, 'bad'));
		assert.equal(forged.status, 401);
		assert.deepEqual(forged.body, { error: 'bad signature' });
		assert.equal(forged.items, undefined);

		const tampered = await handle.deliver(delivery(secret, 'evt_3', body, sign(secret, 'evt_3', body.replace('1', '2'))));
		assert.equal(tampered.status, 401);
		assert.equal(webhookCalls, 4);
		await handle.deactivate();
	});

	test('malformed JSON is refused with 422 before the node runs, as n8n does', async () => {
		const handle = await activate();
		const body = '{"type": ';
		const answer = await handle.deliver(delivery(String(handle.staticData.secret), 'evt_x', body));
		assert.equal(answer.status, 422);
		assert.equal((answer.body as IDataObject).message, 'Failed to parse request body');
		assert.equal(webhookCalls, 0);
		// A wrong method is not routed to the node either.
		const get = await handle.deliver({ method: 'GET', headers: {}, body: '' });
		assert.equal(get.status, 404);
		assert.equal(webhookCalls, 0);
		await handle.deactivate();
	});

	test('a webhookResponse without workflowData answers 200 and starts no run', async () => {
		const handle = await activate({ events: 'stock.bas' });
		const body = JSON.stringify({ type: 'vente.creee' });
		const answer = await handle.deliver(delivery(String(handle.staticData.secret), 'evt_9', body));
		assert.equal(answer.status, 200);
		assert.deepEqual(answer.body, { ignored: true });
		assert.equal(answer.items, undefined);
		await handle.deactivate();
	});

	test('listen: the registered URL is a loopback server whose requests go through deliver', async () => {
		const handle = await activate({ listen: true });
		const listener = await handle.listen();
		assert.equal(listener.url, handle.webhookUrl);
		assert.equal(JSON.parse(erp.requests.filter((r) => r.method === 'POST').at(-1)!.body).url, listener.url);

		const secret = String(handle.staticData.secret);
		const body = JSON.stringify({ type: 'facture.payee' });
		const sent = delivery(secret, 'evt_l1', body);
		const ok = await fetch(listener.url, { method: 'POST', headers: sent.headers, body: sent.body });
		assert.equal(ok.status, 200);
		assert.deepEqual(await ok.json(), { message: 'Workflow was started' });
		const bad = await fetch(listener.url, { method: 'POST', headers: { ...sent.headers, 'webhook-signature': 'x' }, body });
		assert.equal(bad.status, 401);
		await bad.text();
		const elsewhere = await fetch(`${new URL(listener.url).origin}/other`, { method: 'POST', body });
		assert.equal(elsewhere.status, 404);
		await elsewhere.text();
		assert.deepEqual(
			listener.runs.map((items) => items.map((i) => i.json)),
			[[{ type: 'facture.payee' }]],
		);
		await handle.deactivate();
	});
});
