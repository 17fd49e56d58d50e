// Variants of the contract an ERP may choose differently (the credential's Custom API
// Conventions): the sandbox can play each one, so the README's "Connecting to your ERP" guide and
// the tests run against a server that really names things otherwise. Each option has the name of
// the credential field it matches. Defaults: the contract (docs/api-contract.md).
// - Lists: the cursor and page size are read from `cursorParam` / `pageSizeParam` only (a
//   `cursor` or `limit` sent to a server that names them otherwise is ignored, as such a server
//   would); the answer puts the items at `itemsPath` and the next cursor at `nextCursorPath`; a
//   query refused (an unknown cursor, a bad page size) names them as this server does.
// - Webhooks: `signature` 'hmac-hex' or 'hmac-base64' signs the raw body (or `<timestamp>.<body>`
//   with a `timestampHeader`) with HMAC-`signatureAlgorithm`, keyed with the secret's text, into
//   `signatureHeader` after `signaturePrefix`; no webhook-* headers are sent. The event's type, id
//   and data go to `eventTypePath`, `eventIdPath` and `eventDataPath` (and the type also into
//   `eventTypeHeader`, when set).
import { createHmac } from 'node:crypto';

import { ApiError } from './http';

export interface SandboxConventions {
	cursorParam: string;
	pageSizeParam: string;
	itemsPath: string;
	nextCursorPath: string;
	signature: 'standard-webhooks' | 'hmac-hex' | 'hmac-base64';
	signatureHeader: string;
	signatureAlgorithm: 'sha256' | 'sha512' | 'sha1';
	signaturePrefix: string;
	timestampHeader?: string;
	eventTypePath: string;
	eventIdPath: string;
	eventDataPath: string;
	eventTypeHeader?: string;
}

export const DEFAULT_SANDBOX_CONVENTIONS: SandboxConventions = {
	cursorParam: 'cursor',
	pageSizeParam: 'limit',
	itemsPath: 'data',
	nextCursorPath: 'pagination.next_cursor',
	signature: 'standard-webhooks',
	signatureHeader: 'X-Signature',
	signatureAlgorithm: 'sha256',
	signaturePrefix: '',
	eventTypePath: 'type',
	eventIdPath: 'id',
	eventDataPath: 'data',
};

/**
 * The query the handlers read (`cursor`, `limit`) from the query as this server names it. A
 * parameter under the contract's name is dropped when the server names it otherwise.
 */
export function translateQuery(qs: URLSearchParams, c: SandboxConventions): void {
	for (const [ours, theirs] of [
		['cursor', c.cursorParam],
		['limit', c.pageSizeParam],
	]) {
		if (ours === theirs) continue;
		const value = qs.get(theirs);
		qs.delete(ours);
		qs.delete(theirs);
		if (value !== null) qs.set(ours, value);
	}
}

/**
 * A refused query (400 `invalid_query`) as this server words it: the contract's `cursor` and
 * `limit` under this server's names, in the message and the details. Any other error as it is.
 */
export function ownQueryError(error: unknown, c: SandboxConventions): unknown {
	if (!(error instanceof ApiError) || error.code !== 'invalid_query') return error;
	const own = (text: string) =>
		text.replace(/\b(cursor|limit)\b/g, (ours) =>
			ours === 'cursor' ? c.cursorParam : c.pageSizeParam,
		);
	return new ApiError(
		error.status,
		error.code,
		own(error.message),
		error.details?.map((detail) => ({ field: own(detail.field), message: own(detail.message) })),
		error.headers,
	);
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
	const keys = path.split('.');
	let node = target;
	for (const key of keys.slice(0, -1)) {
		if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
		node = node[key] as Record<string, unknown>;
	}
	node[keys[keys.length - 1]] = value;
}

/** A list answer (`{data, pagination}`) as this server shapes it; any other body as it is. */
export function shapeListBody(body: unknown, c: SandboxConventions): unknown {
	if (c.itemsPath === 'data' && c.nextCursorPath === 'pagination.next_cursor') return body;
	const list = body as { data?: unknown; pagination?: Record<string, unknown> } | undefined;
	if (!list || !Array.isArray(list.data) || typeof list.pagination !== 'object') return body;
	const { next_cursor: next, ...rest } = list.pagination;
	const shaped: Record<string, unknown> = {};
	// The other pagination fields (total) stay beside the next cursor.
	const holder = c.nextCursorPath.split('.').slice(0, -1).join('.');
	if (holder !== '') setAt(shaped, holder, rest);
	setAt(shaped, c.nextCursorPath, next);
	setAt(shaped, c.itemsPath, list.data);
	return shaped;
}

/** An event's delivery body as this server shapes it. */
export function eventBody(
	event: { id: string; type: string; created_at: string; data: unknown },
	c: SandboxConventions,
): string {
	const body: Record<string, unknown> = {};
	setAt(body, c.eventIdPath, event.id);
	setAt(body, c.eventTypePath, event.type);
	body.created_at = event.created_at;
	setAt(body, c.eventDataPath, event.data);
	return JSON.stringify(body);
}

/** Standard Webhooks: base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), key = base64-decoded secret after `whsec_`. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The body HMAC as this server sends it: `<prefix><digest>`, keyed with the secret's text. */
export function signBodyHmac(
	secret: string,
	body: string,
	c: SandboxConventions,
	timestamp?: number,
): string {
	const hmac = createHmac(c.signatureAlgorithm, Buffer.from(secret, 'utf8'));
	if (timestamp !== undefined) hmac.update(`${timestamp}.`);
	const encoding = c.signature === 'hmac-base64' ? 'base64' : 'hex';
	return `${c.signaturePrefix}${hmac.update(body).digest(encoding)}`;
}

/** The signature headers (and the type header, if any) of one delivery attempt. */
export function deliveryHeaders(
	secret: string,
	event: { id: string; type: string },
	body: string,
	timestamp: number,
	c: SandboxConventions,
): Record<string, string> {
	const headers: Record<string, string> = {};
	if (c.eventTypeHeader) headers[c.eventTypeHeader.toLowerCase()] = event.type;
	if (c.signature === 'standard-webhooks') {
		headers['webhook-id'] = event.id;
		headers['webhook-timestamp'] = String(timestamp);
		headers['webhook-signature'] = signWebhook(secret, event.id, timestamp, body);
		return headers;
	}
	const signed = c.timestampHeader ? timestamp : undefined;
	if (c.timestampHeader) headers[c.timestampHeader.toLowerCase()] = String(timestamp);
	headers[c.signatureHeader.toLowerCase()] = signBodyHmac(secret, body, c, signed);
	return headers;
}
