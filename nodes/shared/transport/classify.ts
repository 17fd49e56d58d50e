// Error classification: what a failed call from n8n's request helper was (an HTTP answer, a
// network failure, an OAuth2 credential to reconnect) and whether a 2xx body is readable.
import type { IDataObject } from 'n8n-workflow';

export interface HttpAnswer {
	status: number;
	headers: IDataObject;
	body: unknown;
}

export function answerFromError(chain: Array<Record<string, unknown>>): HttpAnswer | undefined {
	for (const entry of chain) {
		const response = entry.response as
			| { status?: unknown; headers?: unknown; data?: unknown }
			| undefined;
		if (response && typeof response === 'object' && typeof response.status === 'number') {
			return {
				status: response.status,
				headers: (response.headers ?? {}) as IDataObject,
				body: response.data,
			};
		}
	}
	return undefined;
}

export function networkCodeFromError(chain: Array<Record<string, unknown>>): string | undefined {
	for (const entry of chain) {
		if (typeof entry.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(entry.code)) return entry.code;
	}
	for (const entry of chain) {
		const message = typeof entry.message === 'string' ? entry.message : '';
		if (/timeout/i.test(message)) return 'ETIMEDOUT';
		if (/socket hang up/i.test(message)) return 'ECONNRESET';
	}
	return undefined;
}

export function isReconnectNeeded(chain: Array<Record<string, unknown>>): boolean {
	return chain.some((entry) => {
		const failure = entry.failure as { cause?: unknown } | undefined;
		const body = entry.body as { error?: unknown } | undefined;
		const message = typeof entry.message === 'string' ? entry.message : '';
		return (
			failure?.cause === 'credential-invalid' ||
			body?.error === 'invalid_grant' ||
			/needs to be reconnected|no refresh token/i.test(message)
		);
	});
}

export function isNotConnected(chain: Array<Record<string, unknown>>): boolean {
	return chain.some(
		(entry) =>
			typeof entry.message === 'string' &&
			/credentials not connected|unable to sign without access token/i.test(entry.message),
	);
}

/**
 * The TLS handshake failed on the protocol version: the server offers none of the versions we
 * allow (TLS 1.3, see ../tls.ts). OpenSSL's client reports the server's protocol_version alert
 * (70) or a version it does not accept; never transient, so never retried.
 */
export function isTlsVersionRefusal(chain: Array<Record<string, unknown>>): boolean {
	return chain.some(
		(entry) =>
			entry.code === 'ERR_SSL_UNSUPPORTED_PROTOCOL' ||
			entry.code === 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' ||
			(typeof entry.message === 'string' &&
				/alert protocol version|SSL routines:[^:]*:unsupported protocol/i.test(entry.message)),
	);
}

/** A 2xx body that is not the JSON we asked for (cut off, HTML, ...). */
export function isUnreadableBody(body: unknown, status: number, method: string): boolean {
	if (status === 204) return false;
	if (body === undefined || body === null || body === '') return method !== 'DELETE';
	return typeof body !== 'object';
}
