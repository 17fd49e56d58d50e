/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests: webhook registration, Standard Webhooks signatures, retries, 410, emitted events.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, it } from '@jest/globals';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { startSandbox, call, control, errorCode } from '../../sandbox';
import { expectCount } from '../e2e/count';
import { eventSchema } from '../../sandbox/schemas';

interface Received {
	headers: Record<string, string>;
	body: string;
}

/** A local receiver that records deliveries and answers the statuses it is told, then 200. */
class Receiver {
	readonly received: Received[] = [];
	statuses: number[] = [];
	private server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			this.received.push({
				headers: req.headers as Record<string, string>,
				body: Buffer.concat(chunks).toString('utf8'),
			});
			res.writeHead(this.statuses.shift() ?? 200);
			res.end();
		});
	});
	url = '';

	async start(): Promise<void> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
	}

	reset(): void {
		this.received.length = 0;
		this.statuses = [];
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
		await sleep(10);
	}
}

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
const receiver = new Receiver();
const api = (method: string, path: string, options?: Parameters<typeof call>[3]) =>
	call(sandbox.baseUrl, method, path, options);
const register = async (events: string[], url = receiver.url) => {
	const r = await api('POST', '/webhooks', { body: { url, events, description: 'test' } });
	assert.equal(r.status, 201, r.text);
	return r.json as { id: string; secret: string; status: string };
};

/**
 * "Nothing else arrived", checked positively: a marker event goes to a hook of its own (emitted
 * after everything the test did, delivered without delay), the test waits for it, then counts
 * what came before it. A delivery the sandbox had scheduled with no more delay than the marker
 * has arrived by then. Returns the deliveries that are not the marker.
 */
async function untilMarker(type = 'tva.declaree'): Promise<Received[]> {
	await register([type]);
	const marker = (await control(sandbox.url, 'events', { type, data: { marker: true } })).json.id;
	await waitFor(
		() => receiver.received.some((r) => r.headers['webhook-id'] === marker),
		'the marker event',
	);
	return receiver.received.filter((r) => r.headers['webhook-id'] !== marker);
}

beforeAll(async () => {
	await receiver.start();
	sandbox = await startSandbox({
		port: 0,
		rateLimit: false,
		webhookRetry: { baseMs: 30, maxAttempts: 4, timeoutMs: 1000 },
	});
});
afterAll(async () => {
	await sandbox.close();
	await receiver.stop();
});
beforeEach(async () => {
	await control(sandbox.url, 'reset', {});
	receiver.reset();
});

describe('registration', () => {
	it('creates (secret only once), lists, reads and deletes webhooks', async () => {
		const hook = await register(['vente.creee', 'stock.bas']);
		assert.match(hook.id, /^whk_/);
		assert.match(hook.secret, /^whsec_/);
		assert.equal(Buffer.from(hook.secret.slice(6), 'base64').length, 32);
		assert.equal(hook.status, 'active');
		const list = await api('GET', '/webhooks');
		assert.equal(list.json.pagination.total, 1);
		assert.equal(list.json.pagination.next_cursor, null);
		assert.deepEqual(list.json.data[0].events, ['vente.creee', 'stock.bas']);
		const one = await api('GET', `/webhooks/${hook.id}`);
		assert.equal(one.json.url, receiver.url);
		assert.ok(
			!list.text.includes(hook.secret) &&
				!one.text.includes(hook.secret) &&
				!('secret' in one.json),
		);
		const deleted = await api('DELETE', `/webhooks/${hook.id}`);
		assert.equal(deleted.status, 204);
		assert.equal((await api('GET', `/webhooks/${hook.id}`)).status, 404);
		assert.equal((await api('DELETE', `/webhooks/${hook.id}`)).status, 404);
		const bad = await api('POST', '/webhooks', {
			body: { url: 'ftp://x', events: ['vente.creee', 'nope'] },
		});
		assert.equal(bad.status, 422);
		assert.deepEqual(
			bad.json.error.details.map((d: { field: string }) => d.field),
			['url', 'events[1]'],
		);
	});
});

describe('deliveries', () => {
	it('signs deliveries so that standardwebhooks verifies them, and rejects a body with one byte changed', async () => {
		const hook = await register(['vente.creee']);
		const f = await api('POST', '/factures', {
			body: { client_id: 'cli_00000001', lignes: [{ article_id: 'art_00000001', quantite: 1 }] },
		});
		assert.equal(f.status, 201);
		await waitFor(() => receiver.received.length === 1, 'a delivery');
		const { headers, body } = receiver.received[0];
		assert.equal(headers['content-type'], 'application/json');
		const payload = new Webhook(hook.secret).verify(body, headers) as Record<string, unknown>;
		assert.deepEqual(eventSchema.parse(payload), payload);
		assert.equal(payload.type, 'vente.creee');
		assert.equal(payload.id, headers['webhook-id']);
		assert.match(payload.id as string, /^evt_/);
		assert.deepEqual(payload.data, f.json);
		assert.ok(!Number.isNaN(Date.parse(payload.created_at as string)));

		const i = body.indexOf('vente');
		const tampered = body.slice(0, i) + 'V' + body.slice(i + 1);
		assert.throws(
			() => new Webhook(hook.secret).verify(tampered, headers),
			WebhookVerificationError,
		);
		const otherSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
		assert.throws(() => new Webhook(otherSecret).verify(body, headers), WebhookVerificationError);
		assert.equal((await untilMarker()).length, 1, 'one event, one delivery');
	});

	it('retries a failed delivery with the same webhook-id until it succeeds', async () => {
		const hook = await register(['*']);
		// Retries without delay: a retry after the success would come before the marker.
		await control(sandbox.url, 'config', { webhookRetry: { baseMs: 0 } });
		receiver.statuses = [500, 503];
		const emitted = await control(sandbox.url, 'events', {
			type: 'paie.validee',
			data: { periode: '2026-10' },
		});
		assert.match(emitted.json.id, /^evt_/);
		await waitFor(() => receiver.received.length === 3, 'three attempts');
		assert.deepEqual(
			new Set(receiver.received.map((r) => r.headers['webhook-id'])),
			new Set([emitted.json.id]),
		);
		for (const r of receiver.received) new Webhook(hook.secret).verify(r.body, r.headers);
		assert.deepEqual(JSON.parse(receiver.received[2].body).data, { periode: '2026-10' });
		// The sandbox has recorded the success (so any retry is already scheduled): then the marker.
		const recorded = async () =>
			(
				(await control(sandbox.url, `deliveries?webhook_id=${hook.id}`)).json.data as Array<{
					ok: boolean;
				}>
			).some((d) => d.ok);
		while (!(await recorded())) await sleep(10);
		const log = (await control(sandbox.url, `deliveries?webhook_id=${hook.id}`)).json.data;
		assert.deepEqual(
			log.map((d: Record<string, unknown>) => [d.attempt, d.status, d.ok, d.event_id]),
			[
				[1, 500, false, emitted.json.id],
				[2, 503, false, emitted.json.id],
				[3, 200, true, emitted.json.id],
			],
		);
		assert.deepEqual((await control(sandbox.url, 'stats')).json.webhookDeliveries, {
			attempts: 3,
			succeeded: 1,
			failed: 2,
		});
		const beforeMarker = (await untilMarker()).filter(
			(r) => r.headers['webhook-id'] === emitted.json.id,
		);
		assert.equal(beforeMarker.length, 3, 'no attempt after a success');
	});

	it('gives up after maxAttempts, and records network errors', async () => {
		await register(['tva.declaree'], 'http://127.0.0.1:9/closed');
		await control(sandbox.url, 'config', { webhookRetry: { maxAttempts: 2, baseMs: 10 } });
		await control(sandbox.url, 'events', { type: 'tva.declaree', data: {} });
		let log: Array<Record<string, unknown>> = [];
		const until = Date.now() + 3000;
		while (Date.now() < until && log.length < 2) {
			await sleep(20);
			log = (await control(sandbox.url, 'deliveries')).json.data;
		}
		await sleep(100);
		log = (await control(sandbox.url, 'deliveries')).json.data;
		assert.deepEqual(
			log.map((d) => d.attempt),
			[1, 2],
		);
		assert.ok(log.every((d) => d.status === null && typeof d.error === 'string' && d.ok === false));
	});

	it('disables a webhook that answers 410 and stops delivering to it', async () => {
		const hook = await register(['facture.payee', 'vente.creee']);
		receiver.statuses = [410];
		await control(sandbox.url, 'events', { type: 'facture.payee', data: {} });
		await waitFor(() => receiver.received.length === 1, 'the 410 delivery');
		await sleep(150);
		assert.equal(receiver.received.length, 1, 'no retry after 410');
		assert.equal((await api('GET', `/webhooks/${hook.id}`)).json.status, 'disabled');
		await control(sandbox.url, 'events', { type: 'vente.creee', data: {} });
		assert.equal((await untilMarker()).length, 1, 'nothing delivered to the disabled webhook');
	});

	it('delivers only the events subscribed; POST /_sandbox/events refuses unknown types', async () => {
		await register(['stock.bas']);
		await control(sandbox.url, 'events', { type: 'vente.creee', data: {} });
		await control(sandbox.url, 'events', { type: 'stock.bas', data: { article_id: 'art_x' } });
		await waitFor(() => receiver.received.length === 1, 'one delivery');
		assert.deepEqual(
			(await untilMarker()).map((r) => JSON.parse(r.body).type),
			['stock.bas'],
		);
		assert.equal(
			errorCode(await control(sandbox.url, 'events', { type: 'commande.creee', data: {} })),
			'validation_failed',
		);
	});

	it("a stock.bas emitted for a known article carries the article's fields, as the ERP's own does", async () => {
		await register(['stock.bas']);
		await control(sandbox.url, 'events', {
			type: 'stock.bas',
			data: { article_id: 'art_00000001' },
		});
		await waitFor(() => receiver.received.length === 1, 'one delivery');
		const article = (await api('GET', '/articles/art_00000001')).json;
		assert.deepEqual(JSON.parse(receiver.received[0].body).data, {
			article_id: 'art_00000001',
			mouvement_id: null,
			reference: article.reference,
			designation: article.designation,
			stock: article.stock,
			seuil_alerte: article.seuil_alerte,
		});
		// Control: an unknown article's event is sent with the data given, nothing added.
		receiver.reset();
		await control(sandbox.url, 'events', { type: 'stock.bas', data: { article_id: 'art_x' } });
		await waitFor(() => receiver.received.length === 1, 'one delivery');
		assert.deepEqual(JSON.parse(receiver.received[0].body).data, { article_id: 'art_x' });
	});
});

describe('events from business operations', () => {
	it('emits vente.creee, stock.bas on crossing seuil_alerte, and facture.payee when fully paid', async () => {
		await register(['*']);
		const a = (
			await api('POST', '/articles', {
				body: {
					reference: 'LOW-1',
					designation: 'Bas',
					prix_ht: 1000,
					tva: 2000,
					stock: 6,
					seuil_alerte: 3,
				},
			})
		).json;
		const f = (
			await api('POST', '/factures', {
				body: { client_id: 'cli_00000004', lignes: [{ article_id: a.id, quantite: 2 }] },
			})
		).json;
		const f2 = (
			await api('POST', '/factures', {
				body: { client_id: 'cli_00000004', lignes: [{ article_id: a.id, quantite: 1 }] },
			})
		).json;
		await api('PATCH', `/articles/${a.id}`, { body: { stock: 2 } }); // already below: no new stock.bas
		await api('PATCH', `/articles/${a.id}`, { body: { stock: 10 } });
		await api('PATCH', `/articles/${a.id}`, { body: { stock: 3 } }); // crosses again
		await api('POST', '/reglements', { body: { facture_id: f.id, montant: 1000, mode: 'carte' } });
		await api('POST', '/reglements', {
			body: { facture_id: f.id, montant: f.total_ttc - 1000, mode: 'carte' },
		});

		const events = (await control(sandbox.url, 'events')).json.data as Array<{
			type: string;
			data: Record<string, unknown>;
		}>;
		assert.deepEqual(
			events.map((e) => e.type),
			['vente.creee', 'vente.creee', 'stock.bas', 'stock.bas', 'facture.payee'],
		);
		assert.deepEqual(events[0].data, f);
		assert.equal(events[1].data.id, f2.id);
		// Each stock.bas names the movement that crossed: the second invoice's (4 -> 3), then the
		// last PATCH's (10 -> 3).
		const movements = (await api('GET', `/stock/mouvements?article_id=${a.id}`)).json
			.data as Array<{
			id: string;
			document_id: string | null;
		}>;
		const crossing = movements.find((m) => m.document_id === f2.id)!;
		assert.equal(events[3].data.mouvement_id, movements[movements.length - 1].id);
		assert.deepEqual(events[2].data, {
			article_id: a.id,
			mouvement_id: crossing.id,
			reference: 'LOW-1',
			designation: 'Bas',
			stock: 3,
			seuil_alerte: 3,
		});
		assert.equal(events[3].data.stock, 3);
		assert.equal(events[4].data.id, f.id);
		assert.equal(events[4].data.statut, 'payee');
		assert.equal(events[4].data.reste_a_payer, 0);
		await expectCount('deliveries', 5, async () => ({ count: receiver.received.length }), {
			quietMs: 1_000,
			pollMs: 20,
		});
	});
});

describe('close', () => {
	it('drops pending retries so the process can exit', async () => {
		const local = await startSandbox({ port: 0, webhookRetry: { baseMs: 60000 } });
		await call(local.baseUrl, 'POST', '/webhooks', { body: { url: receiver.url, events: ['*'] } });
		receiver.statuses = [500];
		await control(local.url, 'events', { type: 'tva.declaree', data: {} });
		await waitFor(() => receiver.received.length === 1, 'first attempt');
		const started = Date.now();
		await local.close();
		assert.ok(Date.now() - started < 1000);
	});
});
