// What a failed call from n8n's request helper was (an HTTP answer, a network failure, a failure
// no retry can help), and whether a 2xx body is readable.
import type { IDataObject, INode } from 'n8n-workflow';

import { notConnectedError, reconnectError, tlsVersionError } from './errors';

type Chain = Array<Record<string, unknown>>;

export interface HttpAnswer {
	status: number;
	headers: IDataObject;
	body: unknown;
}

export function answerFromError(chain: Chain): HttpAnswer | undefined {
	for (const entry of chain) {
		const response = entry.response as { status?: unknown; headers?: IDataObject; data?: unknown };
		if (typeof response === 'object' && typeof response?.status === 'number') {
			return { status: response.status, headers: response.headers ?? {}, body: response.data };
		}
	}
	// NodeApiError without its cause (n8n ~1.99 to 2.33): the status is in `httpCode`, the body in
	// `context.data`; the headers are lost.
	for (const entry of chain) {
		if (typeof entry.httpCode === 'string' && /^\d{3}$/.test(entry.httpCode)) {
			const body = (entry.context as IDataObject | undefined)?.data;
			return { status: Number(entry.httpCode), headers: {}, body };
		}
	}
	return undefined;
}

/** Network error codes found in an error's texts when no `code` field carries them. */
const NETWORK_CODE_IN_TEXT =
	/\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|ECONNABORTED|ESOCKETTIMEDOUT|EPIPE|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH|ENETUNREACH)\b/;

/**
 * An entry's codes: `code`, and NodeApiError's `httpCode`, where n8n keeps the wrapped error's code
 * (n8n ~1.99 to 2.33 lose the wrapped error itself, so "ECONNRESET" there is all that is left).
 */
function codesOf(entry: Record<string, unknown>): string[] {
	return [entry.code, entry.httpCode].filter((c): c is string => typeof c === 'string');
}

/** An entry's texts: message, description, and NodeApiError's `messages` (the wrapped error's). */
function textsOf(entry: Record<string, unknown>): string[] {
	const messages = Array.isArray(entry.messages) ? entry.messages : [];
	return [entry.message, entry.description, ...messages].filter(
		(t): t is string => typeof t === 'string',
	);
}

export function networkCodeFromError(chain: Chain): string | undefined {
	for (const entry of chain) {
		const code = codesOf(entry).find((c) => /^[A-Z][A-Z0-9_]+$/.test(c));
		if (code) return code;
	}
	const texts = chain.flatMap(textsOf);
	for (const text of texts) {
		const found = NETWORK_CODE_IN_TEXT.exec(text);
		if (found) return found[1];
	}
	if (texts.some((t) => /timeout/i.test(t))) return 'ETIMEDOUT';
	if (texts.some((t) => /socket hang up/i.test(t))) return 'ECONNRESET';
	return undefined;
}

/**
 * The error of a failure no retry can help, else undefined: the OAuth2 credential must be
 * reconnected (its refresh token refused) or was never connected, or the server offers no TLS 1.3
 * (../tls.ts; OpenSSL reports the server's protocol_version alert or a version it refuses).
 */
export function fatalError(chain: Chain, node: INode, host: string, itemIndex?: number) {
	const message = (entry: Chain[number]) =>
		typeof entry.message === 'string' ? entry.message : '';
	const reconnect = chain.some(
		(entry) =>
			(entry.failure as { cause?: unknown } | undefined)?.cause === 'credential-invalid' ||
			(entry.body as { error?: unknown } | undefined)?.error === 'invalid_grant' ||
			/needs to be reconnected|no refresh token/i.test(message(entry)),
	);
	if (reconnect) return reconnectError(node, itemIndex);
	const notConnected = /credentials not connected|unable to sign without access token/i;
	if (chain.some((entry) => notConnected.test(message(entry)))) {
		return notConnectedError(node, itemIndex);
	}
	const tls = chain.some(
		(entry) =>
			codesOf(entry).some(
				(c) => c === 'ERR_SSL_UNSUPPORTED_PROTOCOL' || c === 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
			) ||
			textsOf(entry).some((t) =>
				/alert protocol version|SSL routines:[^:]*:unsupported protocol/i.test(t),
			),
	);
	return tls ? tlsVersionError(node, host, itemIndex) : undefined;
}

/** A 2xx body that is not the JSON we asked for (cut off, HTML, ...). */
export function isUnreadableBody(body: unknown, status: number, method: string): boolean {
	if (status === 204) return false;
	if (body === undefined || body === null || body === '') return method !== 'DELETE';
	return typeof body !== 'object';
}
