// Signature checks of webhook deliveries, one small pure function per scheme, with the same input
// and result (no n8n context, no clock, no I/O); `verifySignature` picks the credential's scheme
// (Custom API Conventions, ../shared/conventions.ts).
// - Standard Webhooks (https://www.standardwebhooks.com), the contract's default
//   (docs/api-contract.md): headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
//   `webhook-signature` (space-separated `v1,<base64>` entries), HMAC-SHA256 over
//   `<id>.<timestamp>.<raw body>` keyed with the base64-decoded secret after `whsec_`.
// - HMAC of the body in one header (GitHub, Shopify, WooCommerce style): `<prefix><digest>` in the
//   configured header, the digest (hex or base64) of the raw body keyed with the secret's text;
//   with a timestamp header, of `<timestamp>.<raw body>`. No id: the event reader takes it from
//   the body.
import { createHmac, timingSafeEqual } from 'crypto';

import type { SignatureScheme } from '../shared/conventions';

const SECRET_PREFIX = 'whsec_';

/** Longest values accepted for each header; anything longer is refused before any HMAC work. */
const MAX_ID_LENGTH = 256;
const MAX_TIMESTAMP_LENGTH = 12; // Unix seconds up to the year 33658
const MAX_SIGNATURE_HEADER_LENGTH = 4096; // ~80 `v1,` entries: ample for a secret rotation

export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
	/** `whsec_` + base64, or the bare base64 part. */
	secret: string;
	/** Request headers; names are matched case-insensitively. An array with several values is a duplicated header. */
	headers: WebhookHeaders;
	/** The body exactly as received. */
	rawBody: Buffer | string | undefined;
	/** Largest accepted distance between the timestamp and now, in both directions. */
	toleranceSeconds: number;
	nowSeconds: number;
}

export type VerifyFailureReason =
	| 'invalid_secret'
	| 'missing_body'
	| 'missing_header'
	| 'duplicate_header'
	| 'header_too_large'
	| 'invalid_id'
	| 'invalid_timestamp'
	| 'timestamp_too_old'
	| 'timestamp_in_future'
	| 'malformed_signature'
	| 'no_matching_signature';

/** `id` and `timestamp` are what the signature covers: a scheme without them leaves them out. */
export type VerifyWebhookResult =
	| { ok: true; id?: string; timestamp?: number }
	| { ok: false; reason: VerifyFailureReason };

/** The HMAC key of a secret, or undefined when the secret is not (`whsec_` +) canonical, non-empty base64. */
export function decodeWebhookSecret(secret: string): Buffer | undefined {
	if (typeof secret !== 'string') return undefined;
	const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
	if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
	const key = Buffer.from(encoded, 'base64');
	const unpadded = (s: string) => s.replace(/=+$/, '');
	if (key.length === 0 || unpadded(key.toString('base64')) !== unpadded(encoded)) return undefined;
	return key;
}

/**
 * Checks one delivery. Refuses (in this order) a bad secret, a missing body, missing or duplicated
 * headers, oversized headers, a malformed id, timestamp or signature list, a timestamp outside the
 * tolerance, and finally a signature list without one `v1` entry equal to the expected HMAC (compared
 * in constant time).
 */
export function verifyStandardWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
	const { secret, headers, rawBody, toleranceSeconds, nowSeconds } = input;
	const fail = (reason: VerifyFailureReason): VerifyWebhookResult => ({ ok: false, reason });

	const key = decodeWebhookSecret(secret);
	if (key === undefined) return fail('invalid_secret');

	const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
	if (!Buffer.isBuffer(body) || body.length === 0) return fail('missing_body');

	const found = headerValues(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
	if ('reason' in found) return fail(found.reason);
	const [id, timestampText, signatureHeader] = found.values;

	if (
		id.length > MAX_ID_LENGTH ||
		timestampText.length > MAX_TIMESTAMP_LENGTH ||
		signatureHeader.length > MAX_SIGNATURE_HEADER_LENGTH
	) {
		return fail('header_too_large');
	}
	// Visible ASCII only: the id is part of the signed content and of the replay memory.
	if (!/^[\x21-\x7e]+$/.test(id)) return fail('invalid_id');
	const timestamp = checkTimestamp(timestampText, toleranceSeconds, nowSeconds);
	if (typeof timestamp === 'string') return fail(timestamp);

	const expected = Buffer.from(
		createHmac('sha256', key).update(`${id}.${timestampText}.`).update(body).digest('base64'),
		'utf8',
	);
	// Each entry is `<version>,<token>`. A malformed entry refuses the whole header: it is what a
	// duplicated header looks like once an HTTP stack has joined the copies with ', '.
	const entries = signatureHeader.split(' ').filter((entry) => entry !== '');
	if (!entries.every((entry) => /^[^,]+,[^,]+$/.test(entry))) return fail('malformed_signature');
	let matched = false;
	for (const entry of entries) {
		const [version, token] = entry.split(',');
		if (version !== 'v1') continue; // other versions are ignored
		const candidate = Buffer.from(token, 'utf8');
		// Every entry is compared (no early exit), each in constant time.
		if (candidate.length === expected.length && timingSafeEqual(candidate, expected))
			matched = true;
	}
	return matched ? { ok: true, id, timestamp } : fail('no_matching_signature');
}

/**
 * The `wanted` headers' values (names in lower case), in order, or the first problem: a duplicate
 * (a name seen twice in any case, or an array of several values) before a missing or empty one.
 */
function headerValues(
	headers: WebhookHeaders,
	wanted: string[],
): { values: string[] } | { reason: 'missing_header' | 'duplicate_header' } {
	const values: Array<string | undefined> = wanted.map(() => undefined);
	const seen = new Set<string>();
	let duplicate = false;
	for (const [rawName, rawValue] of Object.entries(headers ?? {})) {
		const at = wanted.indexOf(rawName.toLowerCase());
		if (at === -1 || rawValue === undefined) continue;
		const list = Array.isArray(rawValue) ? rawValue : [rawValue];
		if (seen.has(wanted[at]) || list.length > 1) duplicate = true;
		seen.add(wanted[at]);
		const value = list[0];
		if (typeof value === 'string' && value.trim() !== '') values[at] = value.trim();
	}
	if (duplicate) return { reason: 'duplicate_header' };
	if (values.some((value) => value === undefined)) return { reason: 'missing_header' };
	return { values: values as string[] };
}

/** A signed Unix timestamp inside the tolerance, or why not. */
function checkTimestamp(
	text: string,
	toleranceSeconds: number,
	nowSeconds: number,
): number | 'invalid_timestamp' | 'timestamp_too_old' | 'timestamp_in_future' {
	if (!/^[0-9]+$/.test(text)) return 'invalid_timestamp';
	const timestamp = Number(text);
	if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0 || !Number.isFinite(nowSeconds)) {
		return 'invalid_timestamp';
	}
	if (nowSeconds - timestamp > toleranceSeconds) return 'timestamp_too_old';
	if (timestamp - nowSeconds > toleranceSeconds) return 'timestamp_in_future';
	return timestamp;
}

export type BodyHmacScheme = Extract<SignatureScheme, { kind: 'bodyHmac' }>;

/**
 * Checks one delivery signed with an HMAC of its body in one header. Refuses (in this order) an
 * empty secret, a missing body, missing or duplicated headers, an oversized header, a timestamp
 * that is malformed or outside the tolerance (only with a timestamp header), a header without the
 * prefix or with a malformed digest, and a digest that differs (compared in constant time).
 */
export function verifyBodyHmac(
	input: VerifyWebhookInput,
	scheme: BodyHmacScheme,
): VerifyWebhookResult {
	const { secret, headers, rawBody, toleranceSeconds, nowSeconds } = input;
	const fail = (reason: VerifyFailureReason): VerifyWebhookResult => ({ ok: false, reason });
	if (!isUsableSecret(scheme, secret)) return fail('invalid_secret');
	const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
	if (!Buffer.isBuffer(body) || body.length === 0) return fail('missing_body');

	const wanted = [scheme.header, ...(scheme.timestampHeader ? [scheme.timestampHeader] : [])];
	const found = headerValues(headers, wanted);
	if ('reason' in found) return fail(found.reason);
	const [signature, timestampText] = found.values;
	if (
		signature.length > MAX_SIGNATURE_HEADER_LENGTH ||
		(timestampText ?? '').length > MAX_TIMESTAMP_LENGTH
	) {
		return fail('header_too_large');
	}
	let timestamp: number | undefined;
	if (timestampText !== undefined) {
		const checked = checkTimestamp(timestampText, toleranceSeconds, nowSeconds);
		if (typeof checked === 'string') return fail(checked);
		timestamp = checked;
	}

	if (!signature.startsWith(scheme.prefix)) return fail('malformed_signature');
	let token = signature.slice(scheme.prefix.length);
	const wellFormed = scheme.encoding === 'hex' ? /^[0-9A-Fa-f]+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
	if (!wellFormed.test(token)) return fail('malformed_signature');
	if (scheme.encoding === 'hex') token = token.toLowerCase();

	const hmac = createHmac(scheme.algorithm, Buffer.from(secret.trim(), 'utf8'));
	if (timestampText !== undefined) hmac.update(`${timestampText}.`);
	const expected = Buffer.from(hmac.update(body).digest(scheme.encoding), 'utf8');
	const candidate = Buffer.from(token, 'utf8');
	const matched = candidate.length === expected.length && timingSafeEqual(candidate, expected);
	return matched ? { ok: true, timestamp } : fail('no_matching_signature');
}

/** Whether deliveries can be checked with this secret under this scheme. */
export function isUsableSecret(scheme: SignatureScheme, secret: unknown): boolean {
	if (typeof secret !== 'string') return false;
	return scheme.kind === 'standardWebhooks'
		? decodeWebhookSecret(secret) !== undefined
		: secret.trim() !== '';
}

/** Checks one delivery with the credential's scheme. */
export function verifySignature(
	scheme: SignatureScheme,
	input: VerifyWebhookInput,
): VerifyWebhookResult {
	return scheme.kind === 'bodyHmac' ? verifyBodyHmac(input, scheme) : verifyStandardWebhook(input);
}
