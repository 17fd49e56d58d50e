/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests of the sandbox's delivery pause: n8n "down" without stopping the ERP, and the
// list order and cursor that the polling trigger resumes from.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, it } from '@jest/globals';
import { startSandbox, call, control } from '../../sandbox';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
const received: string[] = [];
const server = http.createServer((req, res) => {
	received.push(String(req.headers['webhook-id']));
	req.resume();
	req.on('end', () => res.writeHead(200).end());
});
let url = '';

const api = (method: string, path: string, body?: unknown) =>
	call(sandbox.baseUrl, method, path, body === undefined ? undefined : { body });
type Attempt = { event_id: string; attempt: number; ok: boolean; error: string | null };
const attempts = async (): Promise<Attempt[]> =>
	(await call(sandbox.url, 'GET', '/_sandbox/deliveries')).json.data;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
	const deadline = Date.now() + 5000;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(10);
	}
}

beforeAll(async () => {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	sandbox = await startSandbox({
		port: 0,
		rateLimit: false,
		webhookRetry: { baseMs: 20, maxAttempts: 3, timeoutMs: 1000 },
	});
});
afterAll(async () => {
	await sandbox.close();
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(async () => {
	await control(sandbox.url, 'reset', {});
	received.length = 0;
});

describe('pausing deliveries', () => {
	it('fails every attempt during the pause (the event is lost after its retries), delivers again after resume', async () => {
		assert.equal((await api('POST', '/webhooks', { url, events: ['tva.declaree'] })).status, 201);
		const paused = await control(sandbox.url, 'deliveries/pause', { seconds: 60 });
		assert.equal(paused.status, 200);
		assert.ok(Date.parse(paused.json.paused_until) > Date.now() + 50_000);
		const lost = (await control(sandbox.url, 'events', { type: 'tva.declaree' })).json.id;
		await until(async () => (await attempts()).length === 3, 'three failed attempts');
		const tried = await attempts();
		assert.deepEqual(
			tried.map((a) => [a.event_id, a.attempt, a.ok, a.error]),
			[1, 2, 3].map((n) => [lost, n, false, 'paused']),
		);
		assert.deepEqual(received, [], 'nothing was sent during the pause');

		assert.equal((await control(sandbox.url, 'deliveries/resume', {})).status, 200);
		const delivered = (await control(sandbox.url, 'events', { type: 'tva.declaree' })).json.id;
		await until(async () => received.length === 1, 'the delivery after resume');
		await sleep(200);
		assert.deepEqual(received, [delivered], 'the event of the pause is not sent later');
	});

	it('a short pause ends by itself, and a retry after it gets through', async () => {
		assert.equal((await api('POST', '/webhooks', { url, events: ['tva.declaree'] })).status, 201);
		// A pause of 1 s, retries 0.5 s then 1 s later: the first attempt falls in the pause and a
		// retry after it, however late the machine runs the first (a busy machine ran it more than
		// 30 ms after the pause began).
		await control(sandbox.url, 'config', { webhookRetry: { baseMs: 500, maxAttempts: 3 } });
		await control(sandbox.url, 'deliveries/pause', { seconds: 1 });
		const id = (await control(sandbox.url, 'events', { type: 'tva.declaree' })).json.id;
		await until(async () => received.length === 1, 'the retried delivery');
		await control(sandbox.url, 'config', { webhookRetry: { baseMs: 20, maxAttempts: 3 } });
		const tried = await attempts();
		assert.equal(tried[0].error, 'paused');
		assert.equal(tried[tried.length - 1].ok, true);
		assert.deepEqual(received, [id]);
	});

	it('refuses a pause that is not a positive number of seconds', async () => {
		assert.equal((await control(sandbox.url, 'deliveries/pause', { seconds: 0 })).status, 422);
		assert.equal((await control(sandbox.url, 'deliveries/pause', { seconds: 'x' })).status, 422);
	});
});

describe('what the polling trigger resumes from', () => {
	it('lists stock movements in creation order, and a cursor naming any movement continues right after it', async () => {
		const art = (
			await api('POST', '/articles', {
				reference: 'POLL-1',
				designation: 'Poll test',
				prix_ht: 100,
				tva: 2000,
			})
		).json;
		for (const stock of [5, 3, 9]) await api('PATCH', `/articles/${art.id}`, { stock });
		const all = (await api('GET', '/stock/mouvements?limit=100')).json.data as Array<{
			id: string;
			stock_apres: number;
		}>;
		const ours = all.slice(-3);
		assert.deepEqual(
			ours.map((m) => m.stock_apres),
			[5, 3, 9],
		);
		const after = (await api('GET', `/stock/mouvements?limit=100&cursor=${ours[0].id}`)).json;
		assert.deepEqual(
			after.data.map((m: { id: string }) => m.id),
			ours.slice(1).map((m) => m.id),
		);
		assert.equal(after.pagination.next_cursor, null);
	});
});
