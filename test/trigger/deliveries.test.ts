/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Signed deliveries to the ERP Trigger: real ones sent by the sandbox after a real registration
// (through the harness's loopback listener, over HTTP), and crafted ones (signed by the
// `standardwebhooks` package with the registration's secret) that must be refused.
import assert from 'node:assert/strict';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, it, jest } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials } from '../harness';
import { activate, triggerProcess } from './process';
import type { TriggerHandle, TriggerListener } from '../harness';
import {
	api,
	control,
	freezeClock,
	newSecret,
	nowSeconds,
	signedDelivery,
	startDeliveringSandbox,
	waitFor,
} from './helpers';
import { expectCount } from '../e2e/count';

let sandbox: SandboxHandle;
let credentials: TestCredentials;
/** Subscribed to every event ("*"), listening on loopback: the sandbox delivers to it. */
let all: TriggerHandle;
let allListener: TriggerListener;
/** Subscribed to vente.creee only. */
let salesOnly: TriggerHandle;
let salesListener: TriggerListener;

beforeAll(async () => {
	// Deliveries signed up to a minute in the past pass the replay memory; retries come after 10 ms.
	sandbox = await startDeliveringSandbox();
	credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
	const listening = (events: string[], workflowId: string) =>
		activate({ parameters: { events }, credentials, listen: true, workflowId });
	all = await listening(['*'], 'dl-all');
	allListener = await all.listen();
	salesOnly = await listening(['vente.creee'], 'dl-sales');
	salesListener = await salesOnly.listen();
});
afterAll(async () => {
	await all?.deactivate();
	await salesOnly?.deactivate();
	await sandbox.close();
});

/** Counted in process: a late extra delivery or run shows within a second. */
const QUIET = { quietMs: 1_000, pollMs: 50 };

const secretOf = (trigger: TriggerHandle) => String(trigger.staticData.webhookSecret);
const runItems = (listener: TriggerListener) =>
	listener.runs.map((items) => items.map((item) => item.json));
/** The one run whose single item is the event `id`. */
const runFor = (listener: TriggerListener, id: string) =>
	waitFor(`a run for ${id}`, () =>
		runItems(listener).find((items) => items.some((item) => item.id === id)),
	);
const sandboxEvents = async (): Promise<IDataObject[]> =>
	(await control(sandbox, 'GET', '/events')).body.data;
const deliveriesTo = async (trigger: TriggerHandle): Promise<IDataObject[]> =>
	(await control(sandbox, 'GET', `/deliveries?webhook_id=${String(trigger.staticData.webhookId)}`))
		.body.data;

// A test that froze the clock and failed midway must not leave it frozen for the next one.
afterEach(() => {
	jest.useRealTimers();
});

describe('real deliveries from the sandbox', () => {
	it('each of the five event types produces exactly one item, with id, type, created_at and data', async () => {
		const client = (await api(sandbox, 'GET', '/clients?limit=1')).body.data[0];
		const article = (
			await api(sandbox, 'POST', '/articles', {
				reference: 'TRIG-1',
				designation: 'Trigger test article',
				prix_ht: 1000,
				tva: 2000,
				stock: 10,
				seuil_alerte: 5,
			})
		).body;

		// vente.creee: a real invoice (2 of 10 in stock: above the threshold, no stock.bas yet).
		const facture = await api(sandbox, 'POST', '/factures', {
			client_id: client.id,
			lignes: [{ article_id: article.id, quantite: 2 }],
		});
		assert.equal(facture.status, 201);
		// facture.payee: a real settlement of the whole amount.
		const reglement = await api(sandbox, 'POST', '/reglements', {
			facture_id: facture.body.id,
			montant: facture.body.total_ttc,
			mode: 'virement',
		});
		assert.equal(reglement.status, 201);
		// stock.bas: a real crossing, 8 -> 4 with a threshold of 5 (this invoice also emits vente.creee).
		const second = await api(sandbox, 'POST', '/factures', {
			client_id: client.id,
			lignes: [{ article_id: article.id, quantite: 4 }],
		});
		assert.equal(second.status, 201);
		// paie.validee and tva.declaree have no endpoint: the sandbox's test-only emitter.
		for (const event of [
			{ type: 'paie.validee', data: { periode: '2026-11', salaries: 12 } },
			{ type: 'tva.declaree', data: { periode: '2026-10', montant: 48200 } },
		])
			assert.equal((await control(sandbox, 'POST', '/events', event)).status, 200, event.type);

		const events = await sandboxEvents();
		assert.deepEqual(events.map((event) => event.type).sort(), [
			'facture.payee',
			'paie.validee',
			'stock.bas',
			'tva.declaree',
			'vente.creee',
			'vente.creee',
		]);
		for (const event of events) {
			const items = await runFor(allListener, String(event.id));
			assert.equal(items.length, 1, `one item for ${String(event.type)}`);
			assert.deepEqual(items[0], {
				id: event.id,
				type: event.type,
				created_at: event.created_at,
				data: event.data,
			});
		}
		const byType = (type: string) =>
			events.filter((event) => event.type === type).map((event) => event.data as IDataObject);
		assert.equal(byType('facture.payee')[0].id, facture.body.id);
		assert.equal(byType('facture.payee')[0].statut, 'payee');
		assert.equal(byType('stock.bas')[0].article_id, article.id);
		assert.equal(byType('stock.bas')[0].stock, 4);

		// Exactly one run per event (no duplicates), each answered 200 at the first attempt.
		await expectCount(
			'deliveries answered',
			events.length,
			async () => ({
				count: (await deliveriesTo(all)).length,
			}),
			QUIET,
		);
		await expectCount(
			'runs of the all-events trigger',
			events.length,
			async () => ({
				count: allListener.runs.length,
			}),
			QUIET,
		);
		assert.ok(
			(await deliveriesTo(all)).every((d) => d.ok === true && d.status === 200 && d.attempt === 1),
		);

		// The sales-only registration received the two sales and nothing else.
		await expectCount(
			'deliveries to the sales-only registration',
			2,
			async () => ({
				count: (await deliveriesTo(salesOnly)).length,
			}),
			QUIET,
		);
		assert.deepEqual(
			runItems(salesListener).map((items) => items.map((item) => item.type)),
			[['vente.creee'], ['vente.creee']],
		);
	});
});

describe('refused deliveries start nothing', () => {
	/** Delivers through the harness and checks that no run started and the memory of ids did not change. */
	async function refused(
		delivery: { headers: Record<string, string | string[]>; body: string | Buffer },
		status: number,
	) {
		const remembered = all.staticData.recentIds;
		const result = await all.deliver(delivery);
		assert.equal(result.status, status, JSON.stringify(result.body));
		assert.equal(result.items, undefined, 'no run');
		assert.equal(result.run, undefined, 'no run');
		assert.deepEqual(all.staticData.recentIds, remembered);
		return result as typeof result & { body: IDataObject };
	}

	it('accepts a delivery signed by the standardwebhooks package, and refuses it with one byte of the body changed', async () => {
		const valid = signedDelivery(secretOf(all), {
			type: 'tva.declaree',
			data: { periode: '2026-09' },
		});
		const changed = Buffer.from(valid.body, 'utf8');
		changed[changed.indexOf('2026-09') + 6] ^= 0x01; // '2026-09' -> '2026-08'
		const result = await refused({ headers: valid.headers, body: changed }, 401);
		assert.deepEqual(result.body, { error: 'invalid_signature', reason: 'no_matching_signature' });

		const accepted = await all.deliver(valid);
		assert.equal(accepted.status, 200);
		assert.equal(accepted.items?.length, 1);
		assert.deepEqual(accepted.items?.[0].json.data, { periode: '2026-09' });
	});

	it('refuses forged, stale, future, truncated, empty and header-less deliveries with 401', async () => {
		const secret = secretOf(all);
		const forged = signedDelivery(newSecret());
		assert.equal((await refused(forged, 401)).body.reason, 'no_matching_signature');

		// The trigger's clock stands still: one second past the 300 s tolerance is refused, the
		// edge itself is accepted, whenever the second would have ticked over.
		const now = freezeClock();
		const stale = signedDelivery(secret, { timestamp: now - 301 });
		assert.equal((await refused(stale, 401)).body.reason, 'timestamp_too_old');
		const future = signedDelivery(secret, { timestamp: now + 301 });
		assert.equal((await refused(future, 401)).body.reason, 'timestamp_in_future');
		for (const edge of [now - 300, now + 300]) {
			const answer = await all.deliver(signedDelivery(secret, { timestamp: edge }));
			assert.equal(answer.status, 200, `a delivery signed at now ${edge - now} s was refused`);
			assert.equal(answer.items?.length, 1);
		}
		jest.useRealTimers();

		const valid = signedDelivery(secret);
		// Truncated: to a body that is still JSON (the final newline cut off), the signature fails.
		const withNewline = signedDelivery(secret, { body: `${valid.body}\n` });
		assert.equal(
			(await refused({ headers: withNewline.headers, body: valid.body }, 401)).body.reason,
			'no_matching_signature',
		);
		// Truncated inside the JSON: n8n itself answers 422 to an unparsable application/json body
		// before any node runs; with another content type the node's signature check answers 401.
		const cut = valid.body.slice(0, -1);
		assert.equal((await refused({ headers: valid.headers, body: cut }, 422)).status, 422);
		const asText = { ...valid.headers, 'content-type': 'text/plain' };
		assert.equal(
			(await refused({ headers: asText, body: cut }, 401)).body.reason,
			'no_matching_signature',
		);
		assert.equal(
			(await refused({ headers: valid.headers, body: '' }, 401)).body.reason,
			'missing_body',
		);
		for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
			const headers = { ...valid.headers };
			delete headers[name];
			assert.equal(
				(await refused({ headers, body: valid.body }, 401)).body.reason,
				'missing_header',
				name,
			);
		}
		// The signature of another event id does not carry over.
		assert.equal(
			(
				await refused(
					{ headers: { ...valid.headers, 'webhook-id': 'evt_other' }, body: valid.body },
					401,
				)
			).body.reason,
			'no_matching_signature',
		);
		// After all this, the valid delivery is still accepted once.
		assert.equal((await all.deliver(valid)).items?.length, 1);
	});

	it('answers 200 without a second run to a replayed webhook-id, even re-signed with a new timestamp', async () => {
		const secret = secretOf(all);
		const first = signedDelivery(secret, { id: 'evt_replay_1' });
		assert.equal((await all.deliver(first)).items?.length, 1);
		// Remembered in the process (replay.ts), not in static data, which n8n does not save from a live webhook.
		assert.equal(all.staticData.recentIds, undefined);

		const again = await refused(first, 200);
		assert.deepEqual(again.body, { received: true, ignored: 'duplicate' });
		const resigned = signedDelivery(secret, { id: 'evt_replay_1', timestamp: nowSeconds() - 10 });
		assert.deepEqual((await refused(resigned, 200)).body, { received: true, ignored: 'duplicate' });
	});

	it('refuses duplicated headers sent over HTTP', async () => {
		const valid = signedDelivery(secretOf(all));
		const post = (headers: http.OutgoingHttpHeaders) =>
			new Promise<{ status: number; body: IDataObject }>((resolve, reject) => {
				const req = http.request(allListener.url, { method: 'POST', headers }, (res) => {
					const chunks: Buffer[] = [];
					res.on('data', (c: Buffer) => chunks.push(c));
					res.on('end', () =>
						resolve({
							status: res.statusCode ?? 0,
							body: JSON.parse(Buffer.concat(chunks).toString()),
						}),
					);
				});
				req.on('error', reject);
				req.end(valid.body);
			});
		const runs = allListener.runs.length;
		const sig = valid.headers['webhook-signature'];
		const twoSignatures = await post({ ...valid.headers, 'webhook-signature': [sig, sig] });
		assert.deepEqual(
			[twoSignatures.status, twoSignatures.body.reason],
			[401, 'malformed_signature'],
		);
		const twoIds = await post({
			...valid.headers,
			'webhook-id': [valid.headers['webhook-id'], 'evt_other'],
		});
		assert.equal(twoIds.status, 401);
		const twoTimestamps = await post({
			...valid.headers,
			'webhook-timestamp': [valid.headers['webhook-timestamp'], valid.headers['webhook-timestamp']],
		});
		assert.equal(twoTimestamps.status, 401);
		assert.equal(allListener.runs.length, runs);
		// The same delivery with single headers passes the same route.
		assert.equal((await post(valid.headers)).status, 200);
		await expectCount('runs', runs + 1, async () => ({ count: allListener.runs.length }), QUIET);
	});

	it('refuses a correctly signed body that is not an ERP event: 400 from the node, 422 from n8n for bad JSON', async () => {
		const secret = secretOf(all);
		// n8n parses application/json bodies before the node runs and answers 422 itself.
		const badJson = signedDelivery(secret, { body: '{"id":"evt_bad","type":' });
		assert.equal((await refused(badJson, 422)).status, 422);
		// Any other content type reaches the node, which checks the signature, then the JSON.
		const asText = { ...badJson, headers: { ...badJson.headers, 'content-type': 'text/plain' } };
		assert.deepEqual((await refused(asText, 400)).body, {
			error: 'malformed_body',
			message: 'The body is not valid JSON',
		});
		const notAnEvent = signedDelivery(secret, { body: '[1,2,3]' });
		assert.equal((await refused(notAnEvent, 400)).body.error, 'malformed_body');
		// A bad signature is answered 401 before the body is looked at.
		const forged = {
			...asText,
			headers: {
				...asText.headers,
				'webhook-signature': signedDelivery(newSecret()).headers['webhook-signature'],
			},
		};
		assert.equal((await refused(forged, 401)).status, 401);
	});

	it('ignores an event type that was not selected: 200 and no run', async () => {
		const delivery = signedDelivery(secretOf(salesOnly), { type: 'tva.declaree' });
		const result = await salesOnly.deliver(delivery);
		assert.equal(result.status, 200);
		assert.deepEqual(result.body, { received: true, ignored: 'event_not_selected' });
		assert.equal(result.items, undefined);
		// The same secret and a selected type start a run.
		assert.equal(
			(await salesOnly.deliver(signedDelivery(secretOf(salesOnly), { type: 'vente.creee' }))).items
				?.length,
			1,
		);
		// A delivery signed for the other registration is refused.
		assert.equal(
			(await salesOnly.deliver(signedDelivery(secretOf(all), { type: 'vente.creee' }))).status,
			401,
		);
	});
});

describe('options and manual mode', () => {
	it('adds the delivery headers on request, without authorization headers, and never the secret', async () => {
		const trigger = await activate({
			parameters: { events: ['stock.bas'], options: { includeHeaders: true } },
			credentials,
			workflowId: 'dl-headers',
		});
		const secret = secretOf(trigger);
		const delivery = signedDelivery(secret, { type: 'stock.bas' });
		const result = await trigger.deliver({
			...delivery,
			headers: { ...delivery.headers, authorization: 'Bearer xyz' },
		});
		const item = result.items?.[0].json as IDataObject;
		const headers = item.headers as IDataObject;
		assert.equal(headers['webhook-id'], delivery.headers['webhook-id']);
		assert.equal(headers['webhook-signature'], delivery.headers['webhook-signature']);
		assert.equal(headers.authorization, undefined);
		assert.ok(!JSON.stringify(result).includes(secret.slice('whsec_'.length)));
		await trigger.deactivate();
	});

	it('uses the Signature Tolerance option, in both directions', async () => {
		const trigger = await activate({
			parameters: { events: ['*'], options: { toleranceSeconds: 30 } },
			credentials,
			workflowId: 'dl-tolerance',
		});
		const secret = secretOf(trigger);
		const now = freezeClock();
		for (const [offset, status] of [
			[-31, 401],
			[31, 401],
			[-30, 200],
			[30, 200],
			[-10, 200],
		]) {
			const answer = await trigger.deliver(signedDelivery(secret, { timestamp: now + offset }));
			assert.equal(answer.status, status, `signed at now ${offset} s with a 30 s tolerance`);
			if (status === 200) assert.equal(answer.items?.length, 1);
		}
		jest.useRealTimers();
		await trigger.deactivate();
	});

	it('refuses a delivery signed before n8n started (a replay across a restart cannot be checked); its re-signed retry runs once', async () => {
		const start = nowSeconds();
		triggerProcess.restart({ since: start });
		try {
			const trigger = await activate({
				parameters: { events: ['*'] },
				credentials,
				workflowId: 'dl-restart',
			});
			const secret = secretOf(trigger);
			const captured = signedDelivery(secret, { id: 'evt_restart_1', timestamp: start - 5 });
			for (let attempt = 0; attempt < 2; attempt++) {
				const result = await trigger.deliver(captured);
				assert.equal(result.status, 409, JSON.stringify(result.body));
				assert.equal((result.body as IDataObject).error, 'signed_before_restart');
				assert.equal(result.run, undefined, 'no run');
			}
			const retry = signedDelivery(secret, { id: 'evt_restart_1', timestamp: start });
			assert.equal((await trigger.deliver(retry)).items?.length, 1);
			const again = await trigger.deliver(retry);
			assert.deepEqual(again.body, { received: true, ignored: 'duplicate' });
			await trigger.deactivate();
		} finally {
			triggerProcess.restart({ since: 0 });
		}
	});

	it("in manual mode verifies with the credential's Webhook Secret, and refuses everything once it is removed", async () => {
		const secret = newSecret();
		const manualCredentials = new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				webhookSecret: secret,
			},
		});
		const trigger = await activate({
			parameters: { events: ['paie.validee'], registration: 'manual' },
			credentials: manualCredentials,
			workflowId: 'dl-manual',
		});
		const delivery = signedDelivery(secret, { type: 'paie.validee' });
		assert.equal((await trigger.deliver(delivery)).items?.length, 1);
		assert.equal(
			(await trigger.deliver(signedDelivery(newSecret(), { type: 'paie.validee' }))).status,
			401,
		);

		manualCredentials.set('erpApi', {
			apiKey: DEMO_KEYS.full,
			environment: 'sandbox',
			baseUrl: sandbox.baseUrl,
		});
		const unsigned = await trigger.deliver(signedDelivery(secret, { type: 'paie.validee' }));
		assert.equal(unsigned.status, 401);
		assert.equal(unsigned.items, undefined);
		await trigger.deactivate();
	});
});
