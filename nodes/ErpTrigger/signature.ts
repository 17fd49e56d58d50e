// Signature checks of webhook deliveries: one pure function per scheme (no context, clock or I/O);
// `verifySignature` picks the credential's scheme (Custom API Conventions).
// - Standard Webhooks (https://www.standardwebhooks.com), the contract's default: `webhook-id`,
//   `webhook-timestamp` (Unix seconds), `webhook-signature` (space-separated `v1,<base64>`);
//   HMAC-SHA256 of `<id>.<timestamp>.<raw body>`, keyed with the base64 after `whsec_`, decoded.
// - HMAC of the body in one header (GitHub, Shopify, WooCommerce style): `<prefix><digest>`, the
//   hex or base64 digest of the raw body (of `<timestamp>.<raw body>` with a timestamp header),
//   keyed with the secret's text. It signs no id: the event reader takes it from the body.
import { createHmac, timingSafeEqual } from 'crypto';

import type { SignatureScheme } from '../shared/conventions';

const SECRET_PREFIX = 'whsec_';

/** Longest values accepted for each header; anything longer is refused before any HMAC work. */
const MAX_ID_LENGTH = 256;
const MAX_TIMESTAMP_LENGTH = 12; // Unix seconds up to the year 33658
const MAX_SIGNATURE_HEADER_LENGTH = 4096; // ~80 `v1,` entries: ample for a secret rotation
const STANDARD_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const STANDARD_MAX_LENGTHS = [MAX_ID_LENGTH, MAX_TIMESTAMP_LENGTH, MAX_SIGNATURE_HEADER_LENGTH];

export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
	/** `whsec_` + base64, or the bare base64 part (Standard Webhooks); any text (body HMAC). */
	secret: string;
	/** Names matched in any case; an array of several values is a duplicated header. */
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

type Failure = { ok: false; reason: VerifyFailureReason };

/** `id` and `timestamp` are what the signature covers: a scheme without them leaves them out. */
export type VerifyWebhookResult = { ok: true; id?: string; timestamp?: number } | Failure;

const fail = (reason: VerifyFailureReason): Failure => ({ ok: false, reason });

/** The HMAC key of a secret; undefined unless it is (`whsec_` +) canonical, non-empty base64. */
export function decodeWebhookSecret(secret: string): Buffer | undefined {
	if (typeof secret !== 'string') return undefined;
	const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
	if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
	const key = Buffer.from(encoded, 'base64');
	const unpadded = (s: string) => s.replace(/=+$/, '');
	if (key.length === 0 || unpadded(key.toString('base64')) !== unpadded(encoded)) return undefined;
	return key;
}

/** Both schemes check first: secret, body, `wanted` (lower case) duplicated, missing, too long. */
function signedParts(
	input: VerifyWebhookInput,
	usableSecret: boolean,
	wanted: string[],
	maxLengths: number[],
): { body: Buffer; values: string[] } | Failure {
	if (!usableSecret) return fail('invalid_secret');
	const { rawBody } = input;
	const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
	if (!Buffer.isBuffer(body) || body.length === 0) return fail('missing_body');
	const values: Array<string | undefined> = wanted.map(() => undefined);
	const seen = new Set<string>();
	let duplicate = false;
	for (const [rawName, rawValue] of Object.entries(input.headers ?? {})) {
		const at = wanted.indexOf(rawName.toLowerCase());
		if (at === -1 || rawValue === undefined) continue;
		const list = Array.isArray(rawValue) ? rawValue : [rawValue];
		if (seen.has(wanted[at]) || list.length > 1) duplicate = true;
		seen.add(wanted[at]);
		const value = list[0];
		if (typeof value === 'string' && value.trim() !== '') values[at] = value.trim();
	}
	if (duplicate) return fail('duplicate_header');
	if (values.some((value) => value === undefined)) return fail('missing_header');
	if (values.some((value, k) => (value as string).length > maxLengths[k])) {
		return fail('header_too_large');
	}
	return { body, values: values as string[] };
}

/** A signed Unix timestamp inside the tolerance, or why not. */
function checkTimestamp(text: string, input: VerifyWebhookInput): number | Failure {
	const { toleranceSeconds, nowSeconds } = input;
	if (!/^[0-9]+$/.test(text)) return fail('invalid_timestamp');
	const timestamp = Number(text);
	if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0 || !Number.isFinite(nowSeconds)) {
		return fail('invalid_timestamp');
	}
	if (nowSeconds - timestamp > toleranceSeconds) return fail('timestamp_too_old');
	if (timestamp - nowSeconds > toleranceSeconds) return fail('timestamp_in_future');
	return timestamp;
}

/** Whether `token` is `expected`, compared in constant time. */
function matches(token: string, expected: Buffer): boolean {
	const candidate = Buffer.from(token, 'utf8');
	return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

/** Checks one Standard Webhooks delivery; refusals come in the order of the checks below. */
export function verifyStandardWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
	const key = decodeWebhookSecret(input.secret);
	const parts = signedParts(input, key !== undefined, STANDARD_HEADERS, STANDARD_MAX_LENGTHS);
	if ('ok' in parts) return parts;
	const [id, timestampText, signatureHeader] = parts.values;
	// Visible ASCII only: the id is part of the signed content and of the replay memory.
	if (!/^[\x21-\x7e]+$/.test(id)) return fail('invalid_id');
	const timestamp = checkTimestamp(timestampText, input);
	if (typeof timestamp !== 'number') return timestamp;
	const expected = Buffer.from(
		createHmac('sha256', key as Buffer)
			.update(`${id}.${timestampText}.`)
			.update(parts.body)
			.digest('base64'),
		'utf8',
	);
	// Each entry is `<version>,<token>`. A malformed entry refuses the whole header: it is what a
	// duplicated header looks like once an HTTP stack has joined the copies with ', '.
	const entries = signatureHeader.split(' ').filter((entry) => entry !== '');
	if (!entries.every((entry) => /^[^,]+,[^,]+$/.test(entry))) return fail('malformed_signature');
	let matched = false;
	// Every `v1` entry is compared, with no early exit; other versions are ignored.
	for (const [version, token] of entries.map((entry) => entry.split(','))) {
		if (version === 'v1' && matches(token, expected)) matched = true;
	}
	return matched ? { ok: true, id, timestamp } : fail('no_matching_signature');
}

/** Checks one delivery signed with an HMAC of its body; refusals come in the order of the checks. */
export function verifyBodyHmac(
	input: VerifyWebhookInput,
	scheme: Extract<SignatureScheme, { kind: 'bodyHmac' }>,
): VerifyWebhookResult {
	const wanted = [scheme.header, ...(scheme.timestampHeader ? [scheme.timestampHeader] : [])];
	const maxLengths = [MAX_SIGNATURE_HEADER_LENGTH, MAX_TIMESTAMP_LENGTH];
	const parts = signedParts(input, isUsableSecret(scheme, input.secret), wanted, maxLengths);
	if ('ok' in parts) return parts;
	const [signature, timestampText] = parts.values;
	const timestamp = timestampText === undefined ? undefined : checkTimestamp(timestampText, input);
	if (typeof timestamp === 'object') return timestamp;
	if (!signature.startsWith(scheme.prefix)) return fail('malformed_signature');
	let token = signature.slice(scheme.prefix.length);
	const wellFormed = scheme.encoding === 'hex' ? /^[0-9A-Fa-f]+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
	if (!wellFormed.test(token)) return fail('malformed_signature');
	if (scheme.encoding === 'hex') token = token.toLowerCase();
	const hmac = createHmac(scheme.algorithm, Buffer.from(input.secret.trim(), 'utf8'));
	if (timestampText !== undefined) hmac.update(`${timestampText}.`);
	const expected = Buffer.from(hmac.update(parts.body).digest(scheme.encoding), 'utf8');
	return matches(token, expected) ? { ok: true, timestamp } : fail('no_matching_signature');
}

export function isUsableSecret(scheme: SignatureScheme, secret: unknown): boolean {
	if (typeof secret !== 'string') return false;
	return scheme.kind === 'standardWebhooks'
		? decodeWebhookSecret(secret) !== undefined
		: secret.trim() !== '';
}

export function verifySignature(scheme: SignatureScheme, input: VerifyWebhookInput) {
	return scheme.kind === 'bodyHmac' ? verifyBodyHmac(input, scheme) : verifyStandardWebhook(input);
}
