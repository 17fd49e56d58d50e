// Errors of a request that got no HTTP answer: the network failed, the TLS handshake was refused,
// or the OAuth2 credential cannot be used. Built like every transport error (errors.ts).
import type { INode, NodeApiError } from 'n8n-workflow';

import { redactSecrets } from './apiError';
import type { ErpErrorContext } from './errors';
import { joinSentences, makeError, mayHaveBeenApplied, withPeriod } from './errors';

/** The request failed without an HTTP answer. */
export function networkError(
	node: INode,
	code: string | undefined,
	host: string,
	context: ErpErrorContext,
	attempts = 1,
	cause?: string,
): NodeApiError {
	const what: Record<string, string> = {
		ECONNREFUSED: 'the connection was refused',
		ECONNRESET: 'the connection was closed unexpectedly',
		ETIMEDOUT: 'the request timed out',
		ECONNABORTED: 'the request timed out',
		ESOCKETTIMEDOUT: 'the request timed out',
		ENOTFOUND: 'the host name could not be resolved',
		EAI_AGAIN: 'the host name could not be resolved',
		CERT_HAS_EXPIRED: 'its TLS certificate has expired',
	};
	const reason = (code && what[code]) ?? 'the connection failed';
	const sentOnce =
		code === 'ECONNREFUSED' ? undefined : mayHaveBeenApplied(context.method, context.resendable);
	return makeError(
		node,
		`Could not reach the ERP API at ${host}: ${reason}`,
		joinSentences(
			code ? `Network error code: ${code}.` : undefined,
			!code && cause ? withPeriod(redactSecrets(cause, context.secrets).slice(0, 300)) : undefined,
			attempts > 1 ? `Gave up after ${attempts} attempts.` : undefined,
			sentOnce,
		),
		{ code: code ? code.toLowerCase() : 'network_error' },
		context.itemIndex,
	);
}

/** The server at `host` offers only TLS versions older than 1.3: nothing was sent, never retried. */
export function tlsVersionError(node: INode, host: string, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		`The ERP server at https://${host} does not offer TLS 1.3, which the ERP API requires`,
		'The connection was refused during the TLS handshake, before any data was sent: the server (or a proxy in front of it) offers only older TLS versions. Check the Base URL, or ask the ERP provider or your administrator to enable TLS 1.3.',
		{ code: 'tls_version_unsupported' },
		itemIndex,
	);
}

/** The OAuth2 refresh token was refused (expired, revoked or already used). */
export function reconnectError(node: INode, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		'The ERP OAuth2 credential must be reconnected: the ERP refused its refresh token',
		'The refresh token expired, was revoked, or was already used. Open the credential and click "Reconnect" (or "Connect my account") to sign in again.',
		{ code: 'invalid_grant', httpCode: 401 },
		itemIndex,
	);
}

/** The OAuth2 credential was never connected. */
export function notConnectedError(node: INode, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		'The ERP OAuth2 credential is not connected yet',
		'Open the credential and click "Connect my account" to sign in to the ERP.',
		{ code: 'oauth_not_connected' },
		itemIndex,
	);
}
