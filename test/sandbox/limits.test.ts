/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests: rate-limit headers, 429, daily quota, idempotency, injected faults, stats.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from '@jest/globals';
import { DEMO_KEYS, call, control, errorCode } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';

const sandbox = useSandbox({ reset: 'beforeEach' });
const api = sandbox.api;
const header = (a: { headers: Record<string, unknown> }, name: string) =>
	a.headers[name.toLowerCase()] as string | undefined;

describe('rate limits', () => {
	it('puts RateLimit-* headers on every /v1 answer, errors included', async () => {
		const answers = [
			await api('GET', '/articles'),
			await api('GET', '/articles/art_nope'),
			await api('POST', '/clients', { body: {} }),
			await api('POST', '/articles', { key: DEMO_KEYS.readonly, body: {} }),
			await api('GET', '/articles', { key: 'sk_test_wrong' }),
		];
		assert.deepEqual(
			answers.map((a) => a.status),
			[200, 404, 422, 403, 401],
		);
		for (const a of answers) {
			assert.equal(header(a, 'RateLimit-Limit'), '100');
			assert.match(header(a, 'RateLimit-Reset') ?? '', /^\d+$/);
			assert.ok(
				Number(header(a, 'RateLimit-Reset')) >= 1 && Number(header(a, 'RateLimit-Reset')) <= 60,
			);
		}
		// One budget per credential: the full key used three, the readonly key one, the IP one.
		assert.deepEqual(
			answers.map((a) => header(a, 'RateLimit-Remaining')),
			['99', '98', '97', '99', '99'],
		);
	});

	it('answers 429 rate_limited with Retry-After, and a client that waits RateLimit-Reset gets through', async () => {
		await control(sandbox.url, 'config', { rateLimit: { limit: 3, windowSeconds: 1 } });
		const ok = [
			await api('GET', '/articles'),
			await api('GET', '/articles'),
			await api('GET', '/articles'),
		];
		assert.deepEqual(
			ok.map((a) => [a.status, header(a, 'RateLimit-Remaining')]),
			[
				[200, '2'],
				[200, '1'],
				[200, '0'],
			],
		);
		const refused = await api('GET', '/articles');
		assert.equal(refused.status, 429);
		assert.equal(errorCode(refused), 'rate_limited');
		assert.equal(header(refused, 'Retry-After'), '1');
		assert.equal(header(refused, 'RateLimit-Remaining'), '0');
		// Another credential is not affected.
		assert.equal((await api('GET', '/articles', { key: DEMO_KEYS.readonly })).status, 200);
		await sleep(Number(header(ok[2], 'RateLimit-Reset')) * 1000);
		const again = await api('GET', '/articles');
		assert.equal(again.status, 200);
		assert.equal(header(again, 'RateLimit-Remaining'), '2');
	});

	it('never answers 429 to a client that waits RateLimit-Reset (rounded up) after Remaining hits 0', async () => {
		// A window of 1.2 s: Reset must say 2, not 1, or the paced client arrives too early.
		await control(sandbox.url, 'config', { rateLimit: { limit: 3, windowSeconds: 1.2 } });
		const statuses: number[] = [];
		for (let i = 0; i < 6; i++) {
			const r = await api('GET', '/articles?limit=1');
			statuses.push(r.status);
			if (header(r, 'RateLimit-Remaining') === '0') {
				assert.equal(header(r, 'RateLimit-Reset'), '2');
				await sleep(Number(header(r, 'RateLimit-Reset')) * 1000);
			}
		}
		assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
	});

	it('answers 429 daily_quota_exceeded with Retry-After reaching the next UTC day', async () => {
		await control(sandbox.url, 'config', { dailyQuota: 2 });
		assert.equal((await api('GET', '/articles')).status, 200);
		assert.equal((await api('GET', '/clients')).status, 200);
		const r = await api('GET', '/articles');
		assert.equal(r.status, 429);
		assert.equal(errorCode(r), 'daily_quota_exceeded');
		const now = new Date();
		const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
		const expected = Math.ceil((midnight - now.getTime()) / 1000);
		assert.ok(
			Math.abs(Number(header(r, 'Retry-After')) - expected) <= 2,
			`${header(r, 'Retry-After')} vs ${expected}`,
		);
		assert.equal((await api('GET', '/articles', { key: DEMO_KEYS.readonly })).status, 200);
	});

	it('can be switched off, and reset restores the defaults', async () => {
		await control(sandbox.url, 'config', { rateLimit: false });
		const r = await api('GET', '/articles');
		assert.equal(r.status, 200);
		assert.equal(header(r, 'RateLimit-Limit'), undefined);
		await control(sandbox.url, 'reset', {});
		assert.deepEqual((await control(sandbox.url, 'config')).json.rateLimit, {
			limit: 100,
			windowSeconds: 60,
		});
		assert.equal(
			errorCode(await control(sandbox.url, 'config', { rateLimit: { limit: 0 } })),
			'validation_failed',
		);
	});
});

describe('idempotency', () => {
	const client = { nom: 'Idem', email: 'idem@client.example' };

	it('replays the first answer for the same key and body, with Idempotent-Replayed', async () => {
		const headers = { 'Idempotency-Key': 'k-1' };
		const first = await api('POST', '/clients', { body: client, headers });
		assert.equal(first.status, 201);
		assert.equal(header(first, 'Idempotent-Replayed'), undefined);
		const second = await api('POST', '/clients', { body: client, headers });
		assert.equal(second.status, 201);
		assert.equal(header(second, 'Idempotent-Replayed'), 'true');
		assert.deepEqual(second.json, first.json);
		assert.equal((await api('GET', '/clients')).json.pagination.total, 31);
		// Without a key, the same body is a new request (here: a duplicate email).
		assert.equal(errorCode(await api('POST', '/clients', { body: client })), 'duplicate_email');
	});

	it('answers 422 idempotency_key_reused when the body differs; keys are per credential', async () => {
		const headers = { 'Idempotency-Key': 'k-2' };
		assert.equal((await api('POST', '/clients', { body: client, headers })).status, 201);
		const reused = await api('POST', '/clients', { body: { ...client, nom: 'Autre' }, headers });
		assert.equal(reused.status, 422);
		assert.equal(errorCode(reused), 'idempotency_key_reused');
		const key = (await control(sandbox.url, 'keys', { scopes: ['clients:write'] })).json.key;
		const other = await api('POST', '/clients', {
			key,
			body: { nom: 'Autre', email: 'autre@client.example' },
			headers,
		});
		assert.equal(other.status, 201);
		assert.equal(header(other, 'Idempotent-Replayed'), undefined);
	});

	it('failAfterCommit: the write happens, the error is answered, and a retry with the same key replays the 201', async () => {
		await control(sandbox.url, 'faults', {
			faults: [{ kind: 'failAfterCommit', status: 500, count: 1, methods: ['POST'] }],
		});
		const before = (await api('GET', '/articles/art_00000030')).json.stock;
		const body = {
			client_id: 'cli_00000001',
			lignes: [{ article_id: 'art_00000030', quantite: 1 }],
		};
		const headers = { 'Idempotency-Key': 'order-77' };
		const failed = await api('POST', '/factures', { body, headers });
		assert.equal(failed.status, 500);
		assert.equal(errorCode(failed), 'internal_error');
		assert.equal((await control(sandbox.url, 'stats')).json.invoices, 6);
		const retry = await api('POST', '/factures', { body, headers });
		assert.equal(retry.status, 201);
		assert.equal(header(retry, 'Idempotent-Replayed'), 'true');
		assert.match(retry.json.id, /^fac_/);
		assert.equal((await control(sandbox.url, 'stats')).json.invoices, 6);
		assert.equal((await api('GET', '/articles/art_00000030')).json.stock, before - 1);
	});
});

describe('faults', () => {
	it('status: answers the status with the error body, then stops after count', async () => {
		await control(sandbox.url, 'faults', {
			faults: [{ kind: 'status', status: 500, count: 2, methods: ['GET'] }],
		});
		assert.equal((await api('POST', '/clients', { body: {} })).status, 422, 'methods filter');
		const a = await api('GET', '/articles');
		assert.equal(a.status, 500);
		assert.equal(errorCode(a), 'internal_error');
		assert.equal(header(a, 'RateLimit-Limit'), '100');
		assert.equal(errorCode(await api('GET', '/clients')), 'internal_error');
		assert.equal((await api('GET', '/articles')).status, 200);
		assert.deepEqual((await control(sandbox.url, 'stats')).json.faults, { status: 2 });
		assert.deepEqual((await control(sandbox.url, 'faults')).json.faults, [
			{ kind: 'status', status: 500, count: 2, methods: ['GET'], left: 0 },
		]);
	});

	it('reset, badBody and slow', async () => {
		await control(sandbox.url, 'faults', {
			faults: [
				{ kind: 'reset', count: 1 },
				{ kind: 'badBody', count: 1 },
				{ kind: 'slow', ms: 300, count: 1 },
			],
		});
		await assert.rejects(api('GET', '/articles'));
		const bad = await api('GET', '/articles');
		assert.equal(bad.status, 200);
		assert.throws(() => JSON.parse(bad.text));
		const started = Date.now();
		const slow = await api('GET', '/articles');
		assert.equal(slow.status, 200);
		assert.ok(Date.now() - started >= 290);
		assert.equal((await api('GET', '/articles')).json.pagination.total, 250);
	});

	it('probability faults are deterministic for a seed; paths limit them; [] clears', async () => {
		const run = async () => {
			await control(sandbox.url, 'faults', {
				seed: 42,
				faults: [{ kind: 'status', status: 503, probability: 0.5, paths: ['/articles'] }],
			});
			const out: number[] = [];
			for (let i = 0; i < 16; i++) out.push((await api('GET', '/articles?limit=1')).status);
			return out;
		};
		const first = await run();
		assert.deepEqual(await run(), first);
		assert.ok(first.includes(503) && first.includes(200), first.join(','));
		assert.equal((await api('GET', '/clients')).status, 200, 'other paths are untouched');
		await control(sandbox.url, 'faults', {
			seed: 42,
			faults: [{ kind: 'status', status: 503, probability: 1 }],
		});
		assert.equal(errorCode(await api('GET', '/articles')), 'service_unavailable');
		await control(sandbox.url, 'faults', { faults: [] });
		for (let i = 0; i < 5; i++) assert.equal((await api('GET', '/articles?limit=1')).status, 200);
	});
});

describe('stats', () => {
	it('counts /v1 and /oauth requests, refused ones included, never /_sandbox; reset zeroes them', async () => {
		await control(sandbox.url, 'config', { rateLimit: { limit: 1, windowSeconds: 60 } });
		await api('GET', '/articles');
		await api('GET', '/articles');
		await api('GET', '/articles', { key: null });
		await call(sandbox.url, 'POST', '/oauth/token', { key: null, raw: 'grant_type=password' });
		await control(sandbox.url, 'stats');
		const s = (await control(sandbox.url, 'stats')).json;
		assert.equal(s.requests, 4);
		assert.deepEqual(s.byStatus, { '200': 1, '429': 1, '401': 2 });
		assert.deepEqual(s.byPath, { 'GET /v1/articles': 3, 'POST /oauth/token': 1 });
		assert.deepEqual(s.webhookDeliveries, { attempts: 0, succeeded: 0, failed: 0 });
		await control(sandbox.url, 'reset', {});
		assert.equal((await control(sandbox.url, 'stats')).json.requests, 0);
	});
});
