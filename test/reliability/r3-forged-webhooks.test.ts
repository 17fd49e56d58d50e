/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// R3 forged webhooks (issue 8). fast-check generates deliveries, each either forged (a wrong,
// random or re-used signature, a wrong secret, a stale, future or shifted timestamp, a changed
// id, a truncated or altered body, missing, duplicated or huge headers, a wrong version or
// encoding) or valid (signed by the `standardwebhooks` package, by the sandbox's signer, or with
// several signatures as during a secret rotation). Most go straight to verifyStandardWebhook; a
// share goes through the ERP Trigger's real webhook handler (a real registration with the sandbox,
// `deliver()`), where replays and re-used ids are added. Target: 0 forged accepted; every valid
// event accepted exactly once.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';

import { DEFAULT_LIMITS } from '../../nodes/ErpTrigger/memory';
import { verifyStandardWebhook } from '../../nodes/ErpTrigger/signature';
import type { WebhookHeaders } from '../../nodes/ErpTrigger/signature';
import { DEMO_KEYS, signWebhook, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials } from '../harness';
import type { TriggerHandle } from '../harness';
import { activate, triggerProcess } from '../trigger/process';
import { type Figure, exactly, printFigures, scale } from './common';

const SUITE = 'R3 forged webhooks';
const TOLERANCE = 300;
/** Timestamps of valid deliveries stay this far inside the tolerance (the handler reads the clock later). */
const MARGIN = 30;
const SEED = 20261122;
const PURE_CASES = scale(800, 8000);
const HANDLER_CASES = scale(240, 2400);

const nowSeconds = () => Math.floor(Date.now() / 1000);
const secretOf = (key: Uint8Array) => `whsec_${Buffer.from(key).toString('base64')}`;
const hmac = (key: Buffer | Uint8Array, content: string | Buffer) =>
	createHmac('sha256', key).update(content).digest('base64');
/** A `v1,` signature over `id.timestamp.body`, computed here (the scheme, independently of the node). */
const sign = (key: Uint8Array, id: string, timestamp: string, body: Buffer) =>
	`v1,${hmac(key, Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]))}`;

interface Delivery {
	headers: WebhookHeaders;
	body: Buffer;
}

interface Case {
	kind: string;
	valid: boolean;
	/** For valid cases: the event id that must be accepted once. */
	id: string;
	/** The receiver's HMAC key. */
	key: Uint8Array;
	delivery: Delivery;
}

/** What every case starts from: the receiver's key, an event and a timestamp inside the tolerance. */
interface Base {
	key: Uint8Array;
	id: string;
	skew: number;
	data: unknown;
	type: string;
}

const baseArb = (
	key?: Uint8Array,
	types: string[] = ['vente.creee', 'facture.payee', 'stock.bas'],
) =>
	fc.record({
		key: key ? fc.constant(key) : fc.uint8Array({ minLength: 24, maxLength: 64 }),
		id: fc.stringMatching(/^evt_[A-Za-z0-9_-]{4,40}$/),
		skew: fc.integer({ min: -(TOLERANCE - MARGIN), max: TOLERANCE - MARGIN }),
		data: fc.jsonValue({ maxDepth: 2 }),
		type: fc.constantFrom(...types),
	});

function eventBody(base: Base, now: number, id = base.id): Buffer {
	return Buffer.from(
		JSON.stringify({
			id,
			type: base.type,
			created_at: new Date(now * 1000).toISOString(),
			data: base.data,
		}),
	);
}

function headersOf(id: string, timestamp: string | number, signature: string): WebhookHeaders {
	return {
		'content-type': 'application/json',
		'webhook-id': id,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': signature,
	};
}

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Forgeries. Each takes the base, the current time and extra random input, and returns a delivery
 * that someone without the receiver's secret could produce (or a valid one damaged in transit).
 */
const forgeries = (
	now: number,
): Array<fc.Arbitrary<(b: Base) => Omit<Case, 'valid' | 'id' | 'key'>>> => {
	const ts = (b: Base) => now + b.skew;
	const valid = (b: Base) => {
		const body = eventBody(b, now);
		return { body, headers: headersOf(b.id, ts(b), sign(b.key, b.id, String(ts(b)), body)) };
	};
	return [
		fc.uint8Array({ minLength: 32, maxLength: 32 }).map((sig) => (b: Base) => ({
			kind: 'random signature',
			delivery: {
				body: eventBody(b, now),
				headers: headersOf(b.id, ts(b), `v1,${Buffer.from(sig).toString('base64')}`),
			},
		})),
		fc.uint8Array({ minLength: 24, maxLength: 64 }).map((other) => (b: Base) => {
			const body = eventBody(b, now);
			const key = Buffer.from(other).equals(Buffer.from(b.key))
				? Buffer.concat([Buffer.from(other), Buffer.from([1])])
				: other;
			return {
				kind: 'wrong secret',
				delivery: { body, headers: headersOf(b.id, ts(b), sign(key, b.id, String(ts(b)), body)) },
			};
		}),
		fc.integer({ min: 1, max: 10 ** 8 }).map((d) => (b: Base) => {
			const stale = String(now - TOLERANCE - MARGIN - d);
			const body = eventBody(b, now);
			return {
				kind: 'stale timestamp',
				delivery: { body, headers: headersOf(b.id, stale, sign(b.key, b.id, stale, body)) },
			};
		}),
		fc.integer({ min: 1, max: 10 ** 8 }).map((d) => (b: Base) => {
			const future = String(now + TOLERANCE + MARGIN + d);
			const body = eventBody(b, now);
			return {
				kind: 'future timestamp',
				delivery: { body, headers: headersOf(b.id, future, sign(b.key, b.id, future, body)) },
			};
		}),
		fc
			.integer({ min: -(TOLERANCE - MARGIN), max: TOLERANCE - MARGIN })
			.map((shift) => (b: Base) => {
				const { body, headers } = valid(b);
				const other = ts(b) + (shift === b.skew ? shift + 1 : shift) - b.skew;
				return {
					kind: 'timestamp changed',
					delivery: { body, headers: { ...headers, 'webhook-timestamp': String(other) } },
				};
			}),
		fc.stringMatching(/^evt_[A-Za-z0-9_-]{4,40}$/).map((otherId) => (b: Base) => {
			const { body, headers } = valid(b);
			return {
				kind: 'id changed',
				delivery: {
					body,
					headers: { ...headers, 'webhook-id': otherId === b.id ? `${otherId}x` : otherId },
				},
			};
		}),
		fc.nat().map((n) => (b: Base) => {
			const { body, headers } = valid(b);
			return {
				kind: 'truncated body',
				delivery: { body: body.subarray(0, n % body.length), headers },
			};
		}),
		fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([n, delta]) => (b: Base) => {
			const { body, headers } = valid(b);
			const altered = Buffer.from(body);
			const at = n % altered.length;
			altered[at] = (altered[at] + delta) % 256;
			return { kind: 'one byte changed', delivery: { body: altered, headers } };
		}),
		fc.constantFrom(...SIGNATURE_HEADERS).map((name) => (b: Base) => {
			const { body, headers } = valid(b);
			const without = { ...headers };
			delete without[name];
			return { kind: `missing ${name}`, delivery: { body, headers: without } };
		}),
		fc
			.tuple(
				fc.constantFrom(...SIGNATURE_HEADERS),
				fc.constantFrom('valid first', 'valid last', 'same twice'),
				fc.string({ minLength: 1, maxLength: 60 }),
			)
			.map(([name, order, junk]) => (b: Base) => {
				const { body, headers } = valid(b);
				const good = String(headers[name]);
				const values =
					order === 'same twice'
						? [good, good]
						: order === 'valid first'
							? [good, junk]
							: [junk, good];
				return {
					kind: `duplicated ${name}`,
					delivery: { body, headers: { ...headers, [name]: values } },
				};
			}),
		fc
			.tuple(fc.constantFrom(...SIGNATURE_HEADERS), fc.integer({ min: 1, max: 200_000 }))
			.map(([name, size]) => (b: Base) => {
				const body = eventBody(b, now);
				if (name === 'webhook-id') {
					// A huge id, correctly signed: refused before any HMAC work.
					const id = `evt_${'a'.repeat(253 + (size % 50_000))}`;
					return {
						kind: 'huge webhook-id',
						delivery: { body, headers: headersOf(id, ts(b), sign(b.key, id, String(ts(b)), body)) },
					};
				}
				if (name === 'webhook-timestamp') {
					const padded = `${'0'.repeat(3 + (size % 10_000))}${ts(b)}`;
					return {
						kind: 'huge webhook-timestamp',
						delivery: { body, headers: headersOf(b.id, padded, sign(b.key, b.id, padded, body)) },
					};
				}
				// The valid signature hidden among thousands of random entries.
				const filler = Array.from(
					{ length: 100 + (size % 3000) },
					(_, i) => `v1,${hmac(Buffer.from([i]), 'x')}`,
				);
				filler.splice(size % filler.length, 0, sign(b.key, b.id, String(ts(b)), body));
				return {
					kind: 'huge webhook-signature',
					delivery: { body, headers: headersOf(b.id, ts(b), filler.join(' ')) },
				};
			}),
		fc.constantFrom('v2', 'v1a', 'V1', 'v0', '', 'v1 ').map((version) => (b: Base) => {
			const { body, headers } = valid(b);
			const token = String(headers['webhook-signature']).slice(3);
			return {
				kind: 'wrong signature version',
				delivery: { body, headers: { ...headers, 'webhook-signature': `${version},${token}` } },
			};
		}),
		fc
			.constantFrom('hex', 'base64url', 'unpadded', 'body only', 'id.body', 'no dots')
			.map((variant) => (b: Base) => {
				const body = eventBody(b, now);
				const t = String(ts(b));
				const content = Buffer.concat([Buffer.from(`${b.id}.${t}.`), body]);
				const tokens: Record<string, string> = {
					hex: createHmac('sha256', b.key).update(content).digest('hex'),
					base64url: createHmac('sha256', b.key).update(content).digest('base64url'),
					unpadded: hmac(b.key, content).replace(/=+$/, ''),
					'body only': hmac(b.key, body),
					'id.body': hmac(b.key, Buffer.concat([Buffer.from(`${b.id}.`), body])),
					'no dots': hmac(b.key, Buffer.concat([Buffer.from(`${b.id}${t}`), body])),
				};
				// base64url of a digest without '+' or '/' equals base64 unpadded: both refused (no '=').
				return {
					kind: `signature as ${variant}`,
					delivery: { body, headers: headersOf(b.id, t, `v1,${tokens[variant]}`) },
				};
			}),
		fc.constantFrom(', ', ',', ';').map((separator) => (b: Base) => {
			// What an HTTP stack makes of two signature headers: joined with a comma.
			const { body, headers } = valid(b);
			const joined = [
				String(headers['webhook-signature']),
				`v1,${hmac(Buffer.from('x'), 'y')}`,
			].join(separator);
			return {
				kind: 'joined signature headers',
				delivery: { body, headers: { ...headers, 'webhook-signature': joined } },
			};
		}),
	];
};

/** Valid deliveries: the reference library, the sandbox's signer, and several signatures (rotation). */
const validDeliveries = (
	now: number,
): Array<fc.Arbitrary<(b: Base) => Omit<Case, 'valid' | 'id' | 'key'>>> => [
	fc.constant((b: Base) => {
		const body = eventBody(b, now);
		const signature = new Webhook(secretOf(b.key)).sign(
			b.id,
			new Date((now + b.skew) * 1000),
			body.toString('utf8'),
		);
		return {
			kind: 'valid: standardwebhooks',
			delivery: { body, headers: headersOf(b.id, now + b.skew, signature) },
		};
	}),
	fc.constant((b: Base) => {
		const body = eventBody(b, now);
		const signature = signWebhook(secretOf(b.key), b.id, now + b.skew, body.toString('utf8'));
		return {
			kind: 'valid: sandbox signer',
			delivery: { body, headers: headersOf(b.id, now + b.skew, signature) },
		};
	}),
	fc
		.tuple(
			fc.array(fc.uint8Array({ minLength: 24, maxLength: 48 }), { minLength: 1, maxLength: 4 }),
			fc.nat(),
			fc.boolean(),
		)
		.map(([oldKeys, position, otherVersions]) => (b: Base) => {
			const body = eventBody(b, now);
			const t = String(now + b.skew);
			const entries = oldKeys.map((old) => sign(old, b.id, t, body));
			if (otherVersions) entries.push(`v2,${hmac(Buffer.from('future'), body)}`);
			entries.splice(position % (entries.length + 1), 0, sign(b.key, b.id, t, body));
			return {
				kind: 'valid: rotation, several signatures',
				delivery: { body, headers: headersOf(b.id, t, entries.join(' ')) },
			};
		}),
];

/** `count` cases, about a third valid, from a fixed seed. */
function generateCases(count: number, seed: number, now: number, key?: Uint8Array): Case[] {
	const caseArb = fc.tuple(
		baseArb(key),
		fc.oneof(
			{ weight: 2, arbitrary: fc.oneof(...forgeries(now)).map((f) => ({ f, valid: false })) },
			{ weight: 1, arbitrary: fc.oneof(...validDeliveries(now)).map((f) => ({ f, valid: true })) },
		),
	);
	return fc.sample(caseArb, { numRuns: count, seed }).map(([base, { f, valid }]) => ({
		...f(base),
		valid,
		id: base.id,
		key: base.key,
	}));
}

function tally(
	map: Map<string, { tried: number; accepted: number }>,
	kind: string,
	accepted: boolean,
) {
	const entry = map.get(kind) ?? { tried: 0, accepted: 0 };
	entry.tried += 1;
	if (accepted) entry.accepted += 1;
	map.set(kind, entry);
}

const figures: Figure[] = [];
let sandbox: SandboxHandle;
let trigger: TriggerHandle;

beforeAll(async () => {
	// Deliveries here are signed up to the tolerance in the past: the memory (triggerProcess's)
	// begins at 0, before them.
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED });
	const credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
	trigger = await activate({
		parameters: { events: ['vente.creee', 'facture.payee', 'stock.bas'] },
		credentials,
		workflowId: 'r3-forged-webhooks',
	});
});

afterAll(async () => {
	await trigger?.deactivate();
	await sandbox?.close();
	printFigures(SUITE, figures);
});

describe(SUITE, () => {
	it('verifyStandardWebhook accepts no forged delivery and every valid one', () => {
		const now = nowSeconds();
		const cases = generateCases(PURE_CASES, SEED, now);
		const byKind = new Map<string, { tried: number; accepted: number }>();
		let forgedAccepted = 0;
		let validRefused = 0;
		const failures: string[] = [];
		for (const c of cases) {
			const result = verifyStandardWebhook({
				secret: secretOf(c.key),
				headers: c.delivery.headers,
				rawBody: c.delivery.body,
				toleranceSeconds: TOLERANCE,
				nowSeconds: now,
			});
			tally(byKind, c.kind, result.ok);
			if (!c.valid && result.ok) {
				forgedAccepted++;
				failures.push(`${c.kind} accepted`);
			}
			if (c.valid && !result.ok) {
				validRefused++;
				failures.push(`${c.kind} refused: ${result.reason}`);
			}
		}
		const forged = cases.filter((c) => !c.valid).length;
		figures.push(
			exactly(
				SUITE,
				'pure check: deliveries judged',
				[...byKind.values()].reduce((sum, k) => sum + k.tried, 0),
				PURE_CASES,
			),
			exactly(
				SUITE,
				`pure check: forged accepted (of ${forged}, ${[...byKind.keys()].filter((k) => !k.startsWith('valid')).length} kinds)`,
				forgedAccepted,
				0,
			),
			exactly(SUITE, `pure check: valid refused (of ${cases.length - forged})`, validRefused, 0),
		);
		assert.deepEqual(failures.slice(0, 10), []);
		// Every kind was generated: a forgery kind that never ran would prove nothing.
		assert.ok(byKind.size >= 28, `only ${byKind.size} kinds were generated`);
	});

	it("through the trigger's webhook handler: no forged, replayed or re-used delivery starts a run; each valid event runs once", async () => {
		const secret = String(trigger.staticData.webhookSecret);
		assert.match(secret, /^whsec_/, 'the registration secret is in static data');
		const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
		const now = nowSeconds();
		const cases = generateCases(HANDLER_CASES, SEED + 1, now, key);

		let forgedAccepted = 0;
		let validRuns = 0;
		const acceptedIds = new Set<string>();
		const failures: string[] = [];
		const validCases: Case[] = [];
		let answered = 0;
		for (const c of cases) {
			const answer = await trigger.deliver({
				headers: c.delivery.headers as Record<string, string | string[]>,
				body: c.delivery.body,
			});
			answered++;
			const ran = answer.items !== undefined;
			if (!c.valid) {
				if (ran || answer.status < 400) {
					forgedAccepted++;
					failures.push(`${c.kind}: ${answer.status}${ran ? ' and a run' : ''}`);
				}
				continue;
			}
			validCases.push(c);
			if (acceptedIds.has(c.id)) {
				// fast-check may generate the same id twice: the second is a re-used id.
				if (ran) failures.push(`re-used id ${c.id} ran again`);
				continue;
			}
			if (answer.status !== 200 || answer.items?.length !== 1) {
				failures.push(`${c.kind}: ${answer.status}, ${answer.items?.length ?? 'no'} items`);
				continue;
			}
			assert.equal(answer.items[0].json.id, c.id);
			validRuns++;
			acceptedIds.add(c.id);
		}

		// Replays of accepted events: the same bytes, re-signed with a fresh timestamp (what the
		// sender's retry does), and another body under an id already accepted.
		let replaysTried = 0;
		let replaysAccepted = 0;
		for (const c of validCases.filter((v) => acceptedIds.has(v.id))) {
			const t = String(nowSeconds());
			const otherBody = Buffer.from(
				JSON.stringify({ id: c.id, type: 'facture.payee', data: { forged: true } }),
			);
			for (const replay of [
				c.delivery,
				{ body: c.delivery.body, headers: headersOf(c.id, t, sign(key, c.id, t, c.delivery.body)) },
				{ body: otherBody, headers: headersOf(c.id, t, sign(key, c.id, t, otherBody)) },
			]) {
				replaysTried++;
				const answer = await trigger.deliver({
					headers: replay.headers as Record<string, string | string[]>,
					body: replay.body,
				});
				answered++;
				if (answer.items !== undefined) {
					replaysAccepted++;
					failures.push(`replay of ${c.id} ran again`);
				} else if (answer.status !== 200) {
					failures.push(
						`replay of ${c.id} answered ${answer.status} (a replay of an accepted id gets 200, no run)`,
					);
				}
			}
		}

		const forged = cases.length - validCases.length;
		figures.push(
			exactly(
				SUITE,
				'handler: deliveries answered (incl. 3 replays per accepted event)',
				answered,
				HANDLER_CASES + 3 * validCases.filter((v) => acceptedIds.has(v.id)).length,
			),
			exactly(SUITE, `handler: forged accepted (of ${forged})`, forgedAccepted, 0),
			exactly(
				SUITE,
				`handler: replays / re-used ids accepted (of ${replaysTried})`,
				replaysAccepted,
				0,
			),
			exactly(
				SUITE,
				'handler: valid events run (exactly once each)',
				validRuns,
				new Set(validCases.map((c) => c.id)).size,
			),
		);
		assert.deepEqual(failures.slice(0, 10), []);
		assert.ok(validRuns > 0 && forged > 0);
	});

	const MAX_RETIRED_HERE = 10;
	it('an accepted id is still refused after many other events, while its timestamp is within the tolerance', async () => {
		// A captured delivery replayed within the 5-minute tolerance must not run twice, however many
		// events were accepted in between (a busy ERP sends hundreds in five minutes): more than the
		// trigger's replay memory keeps once the tolerance has passed: here a memory that keeps only
		// 10 such ids, so that even the reduced run goes far past it.
		triggerProcess.restart({ maxRetired: MAX_RETIRED_HERE });
		const secret = String(trigger.staticData.webhookSecret);
		const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
		const t = String(nowSeconds());
		const event = (id: string) =>
			Buffer.from(JSON.stringify({ id, type: 'vente.creee', data: {} }));
		const first = { body: event('evt_replay_target'), id: 'evt_replay_target' };
		const captured = {
			body: first.body,
			headers: headersOf(first.id, t, sign(key, first.id, t, first.body)),
		};
		assert.ok(
			(
				await trigger.deliver({
					headers: captured.headers as Record<string, string>,
					body: captured.body,
				})
			).items,
		);
		const between = scale(100, DEFAULT_LIMITS.maxRetired + 10);
		assert.ok(between > MAX_RETIRED_HERE);
		for (let i = 0; i < between; i++) {
			const id = `evt_between_${i}_${randomBytes(4).toString('hex')}`;
			const body = event(id);
			const s = String(nowSeconds());
			await trigger.deliver({
				headers: headersOf(id, s, sign(key, id, s, body)) as Record<string, string>,
				body,
			});
		}
		const replay = await trigger.deliver({
			headers: captured.headers as Record<string, string>,
			body: captured.body,
		});
		figures.push(
			exactly(
				SUITE,
				`replay within tolerance after ${between} other events: runs`,
				replay.items ? 1 : 0,
				0,
			),
		);
		assert.equal(
			replay.items,
			undefined,
			`the replay started a second run after ${between} other events`,
		);
	});
});
