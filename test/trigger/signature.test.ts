/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Unit tests of the pure Standard Webhooks check. Deliveries are signed by the `standardwebhooks`
// package (the scheme's reference implementation), never by the code under test.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from '@jest/globals';

import { Webhook } from 'standardwebhooks';

import {
	decodeWebhookSecret,
	verifyStandardWebhook,
	type VerifyWebhookInput,
	type WebhookHeaders,
} from '../../nodes/ErpTrigger/signature';

const NOW = 1_763_780_000;
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const SECRET = newSecret();
const BODY = JSON.stringify({
	id: 'evt_1',
	type: 'vente.creee',
	created_at: '2026-11-22T04:00:00Z',
	data: { facture: { id: 'fac_1', total_ttc: 12000, libelle: 'Crème brûlée' } },
});

/** `v1,<base64>` made by the reference library. */
function signature(secret: string, id: string, timestamp: number, body: string): string {
	return new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
}

function delivery(
	overrides: Partial<VerifyWebhookInput> = {},
	headerOverrides: WebhookHeaders = {},
) {
	const headers: WebhookHeaders = {
		'webhook-id': 'evt_1',
		'webhook-timestamp': String(NOW),
		'webhook-signature': signature(SECRET, 'evt_1', NOW, BODY),
		...headerOverrides,
	};
	return verifyStandardWebhook({
		secret: SECRET,
		headers,
		rawBody: Buffer.from(BODY, 'utf8'),
		toleranceSeconds: 300,
		nowSeconds: NOW,
		...overrides,
	});
}

const refused = (result: ReturnType<typeof delivery>, reason: string) =>
	assert.deepEqual(result, { ok: false, reason });

describe('verifyStandardWebhook: accepted deliveries', () => {
	it('accepts a delivery signed by the standardwebhooks package, and that package accepts it too', () => {
		assert.deepEqual(delivery(), { ok: true, id: 'evt_1', timestamp: NOW });
		// Cross-check: the reference verifier agrees on the same headers and body (at real time).
		const now = Math.floor(Date.now() / 1000);
		const headers = {
			'webhook-id': 'evt_x',
			'webhook-timestamp': String(now),
			'webhook-signature': signature(SECRET, 'evt_x', now, BODY),
		};
		assert.deepEqual(new Webhook(SECRET).verify(BODY, headers), JSON.parse(BODY));
		const ours = verifyStandardWebhook({
			secret: SECRET,
			headers,
			rawBody: BODY,
			toleranceSeconds: 300,
			nowSeconds: now,
		});
		assert.equal(ours.ok, true);
	});

	it('accepts the bare base64 secret (without whsec_) and a string body', () => {
		assert.equal(delivery({ secret: SECRET.slice('whsec_'.length), rawBody: BODY }).ok, true);
	});

	it('matches header names case-insensitively and accepts one-element arrays', () => {
		const sig = signature(SECRET, 'evt_1', NOW, BODY);
		const result = verifyStandardWebhook({
			secret: SECRET,
			headers: {
				'Webhook-Id': ['evt_1'],
				'WEBHOOK-TIMESTAMP': String(NOW),
				'webhook-signature': [sig],
			},
			rawBody: BODY,
			toleranceSeconds: 300,
			nowSeconds: NOW,
		});
		assert.equal(result.ok, true);
	});

	it('accepts any matching v1 entry among several (secret rotation), in either order, ignoring other versions', () => {
		const oldSecret = newSecret();
		const oldSig = signature(oldSecret, 'evt_1', NOW, BODY);
		const newSig = signature(SECRET, 'evt_1', NOW, BODY);
		for (const header of [
			`${oldSig} ${newSig}`,
			`${newSig} ${oldSig}`,
			`v2,abc ${oldSig} ${newSig} v1a,xyz`,
		]) {
			assert.equal(delivery({}, { 'webhook-signature': header }).ok, true, header);
		}
		// The old secret's signature alone does not pass with the new secret.
		refused(delivery({}, { 'webhook-signature': oldSig }), 'no_matching_signature');
		// Verified with the old secret, the same header passes (the receiver may still hold it).
		assert.equal(
			delivery({ secret: oldSecret }, { 'webhook-signature': `${oldSig} ${newSig}` }).ok,
			true,
		);
	});

	it('signs the raw bytes: a body that is not valid UTF-8 still verifies byte for byte', () => {
		const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
		const key = decodeWebhookSecret(SECRET)!;
		// The reference library signs strings only, so these bytes are signed with node:crypto directly.
		const sig = createHmac('sha256', key).update(`evt_1.${NOW}.`).update(body).digest('base64');
		assert.equal(delivery({ rawBody: body }, { 'webhook-signature': `v1,${sig}` }).ok, true);
		refused(
			delivery(
				{ rawBody: Buffer.from(body.toString('utf8')) },
				{ 'webhook-signature': `v1,${sig}` },
			),
			'no_matching_signature',
		);
	});

	it('accepts a timestamp exactly at the tolerance, in the past and in the future', () => {
		for (const ts of [NOW - 300, NOW + 300]) {
			const result = delivery(
				{},
				{
					'webhook-timestamp': String(ts),
					'webhook-signature': signature(SECRET, 'evt_1', ts, BODY),
				},
			);
			assert.deepEqual(result, { ok: true, id: 'evt_1', timestamp: ts });
		}
	});
});

describe('verifyStandardWebhook: refusals', () => {
	it('refuses a body with one byte changed, a truncated body, and a missing or empty body', () => {
		const changed = Buffer.from(BODY, 'utf8');
		changed[changed.length - 3] ^= 0x01;
		refused(delivery({ rawBody: changed }), 'no_matching_signature');
		refused(delivery({ rawBody: BODY.slice(0, -1) }), 'no_matching_signature');
		refused(delivery({ rawBody: undefined }), 'missing_body');
		refused(delivery({ rawBody: Buffer.alloc(0) }), 'missing_body');
	});

	it('refuses a signature made with another secret, for another id or for another timestamp', () => {
		refused(
			delivery({}, { 'webhook-signature': signature(newSecret(), 'evt_1', NOW, BODY) }),
			'no_matching_signature',
		);
		refused(delivery({}, { 'webhook-id': 'evt_2' }), 'no_matching_signature');
		refused(delivery({}, { 'webhook-timestamp': String(NOW + 1) }), 'no_matching_signature');
	});

	it('refuses signature lists without a matching v1 entry: other versions only, wrong length, hex digest', () => {
		const b64 = signature(SECRET, 'evt_1', NOW, BODY).slice(3);
		for (const header of [
			`v2,${b64}`,
			`v1,${b64}=`,
			`v1,${b64.slice(0, -1)}`,
			`v1,${Buffer.from(b64, 'base64').toString('hex')}`,
			`V1,${b64}`,
		]) {
			refused(delivery({}, { 'webhook-signature': header }), 'no_matching_signature');
		}
	});

	it('refuses a signature list with a malformed entry, such as a duplicated header joined with ", "', () => {
		const sig = signature(SECRET, 'evt_1', NOW, BODY);
		const b64 = sig.slice(3);
		for (const header of [
			`${sig}, ${sig}`,
			b64,
			`v1 ${b64}`,
			`${sig} v1,`,
			`${sig} ,${b64}`,
			`v1,${b64},x`,
		]) {
			refused(delivery({}, { 'webhook-signature': header }), 'malformed_signature');
		}
	});

	it('refuses each missing or empty header', () => {
		for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
			refused(delivery({}, { [name]: undefined }), 'missing_header');
			refused(delivery({}, { [name]: '' }), 'missing_header');
			refused(delivery({}, { [name]: [] }), 'missing_header');
		}
		refused(delivery({ headers: {} }), 'missing_header');
	});

	it('refuses duplicated headers: several values, or the same name twice in different case', () => {
		const sig = signature(SECRET, 'evt_1', NOW, BODY);
		refused(delivery({}, { 'webhook-signature': [sig, sig] }), 'duplicate_header');
		refused(delivery({}, { 'webhook-id': ['evt_1', 'evt_1'] }), 'duplicate_header');
		refused(delivery({}, { 'webhook-timestamp': [String(NOW), String(NOW)] }), 'duplicate_header');
		refused(delivery({}, { 'Webhook-Id': 'evt_1' }), 'duplicate_header');
	});

	it('refuses oversized headers before any HMAC work', () => {
		const sig = signature(SECRET, 'evt_1', NOW, BODY);
		refused(delivery({}, { 'webhook-id': 'e'.repeat(257) }), 'header_too_large');
		refused(delivery({}, { 'webhook-timestamp': '1'.repeat(13) }), 'header_too_large');
		refused(
			delivery({}, { 'webhook-signature': `${'v1,AAAA '.repeat(600)}${sig}` }),
			'header_too_large',
		);
	});

	it('refuses an id with spaces or non-ASCII characters', () => {
		refused(delivery({}, { 'webhook-id': 'evt 1' }), 'invalid_id');
		refused(delivery({}, { 'webhook-id': 'évt_1' }), 'invalid_id');
	});

	it('refuses a timestamp that is not a whole number of seconds', () => {
		for (const ts of ['12.5', '-5', '1e9', '0x10', 'now', `${NOW}ms`]) {
			refused(delivery({}, { 'webhook-timestamp': ts }), 'invalid_timestamp');
		}
	});

	it('refuses stale and future timestamps, even when correctly signed', () => {
		const at = (ts: number, tolerance = 300) =>
			delivery(
				{ toleranceSeconds: tolerance },
				{
					'webhook-timestamp': String(ts),
					'webhook-signature': signature(SECRET, 'evt_1', ts, BODY),
				},
			);
		refused(at(NOW - 301), 'timestamp_too_old');
		refused(at(NOW + 301), 'timestamp_in_future');
		refused(at(NOW - 3600), 'timestamp_too_old');
		refused(at(NOW - 31, 30), 'timestamp_too_old');
		assert.equal(at(NOW - 30, 30).ok, true);
	});

	it('refuses malformed secrets instead of keying the HMAC with garbage', () => {
		for (const secret of [
			'',
			'whsec_',
			'whsec_not base64!',
			'whsec_A',
			'whsec_AB==',
			'sk_test_demo_full',
		]) {
			refused(delivery({ secret }), 'invalid_secret');
		}
	});
});

describe('decodeWebhookSecret', () => {
	it('decodes the base64 part after whsec_, with or without the prefix, and only canonical base64', () => {
		const key = randomBytes(32);
		assert.deepEqual(decodeWebhookSecret(`whsec_${key.toString('base64')}`), key);
		assert.deepEqual(decodeWebhookSecret(key.toString('base64')), key);
		assert.deepEqual(decodeWebhookSecret(key.toString('base64').replace(/=+$/, '')), key);
		assert.equal(decodeWebhookSecret('whsec_%%%%'), undefined);
		assert.equal(decodeWebhookSecret('whsec_AB=='), undefined); // non-zero padding bits
	});
});
