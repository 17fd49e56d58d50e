// The errors a request ends with, in a user's terms: NodeApiErrors keeping the API's error code
// (apiError.ts `makeError`, API text scrubbed), one function per way a request fails.
import type { INode, NodeApiError } from 'n8n-workflow';

import { joinSentences, makeError, readApiError, redactSecrets, withPeriod } from './apiError';
import { isIdempotentMethod, requiredScopes } from './settings';
import type { ErpRequest, HttpMethod } from './settings';

/** What the transport knows of a failed request, to build its error (`path` with its slash). */
interface ErpErrorContext
	extends Pick<ErpRequest, 'method' | 'path' | 'body' | 'resource' | 'itemIndex' | 'resendable'> {
	authentication: 'apiKey' | 'oAuth2';
	/** The credential's secret values, scrubbed from anything the API sends back. */
	secrets?: readonly string[];
}

/** The error for an HTTP answer that is not a success (after any retries). */
export function httpStatusError(
	node: INode,
	status: number,
	body: unknown,
	context: ErpErrorContext,
	extra?: string,
): NodeApiError {
	const api = readApiError(body, context.secrets);
	const fieldText = api.details
		?.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message))
		.join('; ');
	const said = api.message ? `: ${api.message}` : '';
	const oAuth2 = context.authentication === 'oAuth2';
	// The description: the API's message (`shown`), what to do (`advice`), the API's error code.
	let shown = api.message ? withPeriod(api.message) : undefined;
	let advice: string | undefined;
	let message: string;
	if (status === 400) {
		message = `The ERP API rejected the request as invalid${fieldText ? `: ${fieldText}` : said}`;
	} else if (status === 401) {
		message = `The ERP API refused the credential: the ${oAuth2 ? 'access token' : 'API key'} is missing, invalid, expired or revoked`;
		advice = oAuth2
			? 'Reconnect the credential, or check that the Base URL points to the right environment.'
			: 'Check the key in the credential, its environment, and that it has not been revoked (ERP settings > API > Keys).';
	} else if (status === 403) {
		// An endpoint docs/api-contract.md does not list: the API's own message names the scope.
		const scopes = requiredScopes(context.method, context.path, context.body);
		message = scopes.length
			? `The credential lacks the permission for this request: it needs the scope ${scopes.join(', ')}`
			: `The credential lacks the permission for this request${said}`;
		if (!scopes.length) shown = undefined;
		advice = oAuth2
			? "Add the scope in the credential's Scopes and reconnect it."
			: 'Create a key with the needed scope in the ERP settings (API > Keys) and use it in the credential.';
	} else if (status === 404) {
		message = `${context.resource ?? `The requested resource (${context.method} ${context.path})`} was not found`;
	} else if (status === 409) {
		message = `The ERP refused the operation (business rule${api.code ? ` ${api.code}` : ''})${said}`;
	} else if (status === 422 && api.code === 'idempotency_key_reused') {
		message = 'This Idempotency-Key was already used for a different request in the last 24 hours';
		advice =
			'Use a different custom key for each distinct request (Request Options > Idempotency Key), or choose Automatic.';
	} else if (status === 422) {
		message = `The ERP API rejected the data${fieldText ? `: ${fieldText}` : said}`;
	} else if (status === 429) {
		message = 'The ERP API rate limit is still exceeded after several retries';
		advice =
			'The ERP allows a fixed number of requests per minute for each credential. Slow the workflow down or run it later.';
	} else if (status >= 500) {
		message = `The ERP API failed with a server error (HTTP ${status})`;
	} else {
		message = `The ERP API answered HTTP ${status}${said}`;
		shown = undefined;
	}
	return makeError(
		node,
		message,
		joinSentences(shown, advice, api.code ? `Error code: ${api.code}.` : undefined, extra),
		{ code: api.code, httpCode: status, details: api.details, apiMessage: api.message },
		context.itemIndex,
	);
}

/** The daily quota is exhausted: never slept through. */
export function dailyQuotaError(
	node: INode,
	body: unknown,
	waitSeconds: number | undefined,
	context: ErpErrorContext,
): NodeApiError {
	const api = readApiError(body, context.secrets);
	const resumes =
		waitSeconds !== undefined
			? ` Requests are accepted again from ${new Date(Date.now() + waitSeconds * 1000).toISOString()}.`
			: '';
	return makeError(
		node,
		'The daily request quota of the ERP API is exhausted',
		`The account has used all its requests for today (UTC).${resumes} Run the workflow again then, or ask the ERP provider for a larger quota.`,
		{ code: api.code ?? 'daily_quota_exceeded', httpCode: 429, details: api.details },
		context.itemIndex,
	);
}

// The server asks for a wait past what is left of Max Rate-Limit Wait. `waitedSeconds`: already
// waited for the rate limit; `estimated`: a bare 429, `waitSeconds` is when the pacer tries again.
export function waitCapError(
	node: INode,
	{ status, body }: { status: number; body: unknown },
	stop: { waitSeconds?: number; waitedSeconds?: number; estimated?: boolean },
	maxWaitSeconds: number,
	context: ErpErrorContext,
): NodeApiError {
	const { waitSeconds = 0, waitedSeconds = 0, estimated = false } = stop;
	const api = readApiError(body, context.secrets);
	const asked = Math.ceil(waitSeconds);
	const waited = Math.floor(waitedSeconds);
	const after = waited >= 1 ? ` after waiting ${waited} s` : '';
	return makeError(
		node,
		estimated
			? `The ERP API rate limit is still exceeded${after}; it names no wait, and the key is slowed down until ${asked} s from now, past the Max Rate-Limit Wait of ${maxWaitSeconds} s`
			: waited >= 1
				? `The ERP API rate limit is still exceeded after waiting ${waited} s; it asks for ${asked} s more, past the Max Rate-Limit Wait of ${maxWaitSeconds} s`
				: `The ERP API asks to wait ${asked} s before retrying, longer than the Max Rate-Limit Wait of ${maxWaitSeconds} s`,
		'Raise "Max Rate-Limit Wait (Seconds)" in the node\'s Request Options, or run the workflow later.',
		{
			code: api.code ?? (status === 429 ? 'rate_limited' : undefined),
			httpCode: status,
			details: api.details,
		},
		context.itemIndex,
	);
}

/** A 2xx answer whose body could not be read as JSON. */
export function badBodyError(node: INode, status: number, context: ErpErrorContext): NodeApiError {
	return makeError(
		node,
		`The ERP API answered ${context.method} ${context.path} with a body that is not valid JSON`,
		joinSentences(
			'The answer was cut off or is not from the ERP API (check the Base URL).',
			mayHaveBeenApplied(context.method, context.resendable),
		),
		{ code: 'invalid_response_body', httpCode: status },
		context.itemIndex,
	);
}

/** What to know before running again a request whose answer was lost and was not resent. */
export function mayHaveBeenApplied(
	method: HttpMethod,
	resendable = isIdempotentMethod(method),
): string | undefined {
	if (method === 'POST') {
		return 'The request may have been applied and was not resent automatically. Running it again sends the same Idempotency-Key (unless keys are off), so the ERP does not create the record twice.';
	}
	if (!resendable) {
		return 'The change may have been applied and was not resent automatically; check the record before running it again.';
	}
	return undefined;
}

const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ECONNRESET: 'the connection was closed unexpectedly',
	ETIMEDOUT: 'the request timed out',
	ECONNABORTED: 'the request timed out',
	ESOCKETTIMEDOUT: 'the request timed out',
	ENOTFOUND: 'the host name could not be resolved',
	EAI_AGAIN: 'the host name could not be resolved',
	CERT_HAS_EXPIRED: 'its TLS certificate has expired',
};

export function networkError(
	node: INode,
	code: string | undefined,
	host: string,
	context: ErpErrorContext,
	attempts: number,
	cause?: string,
): NodeApiError {
	const reason = (code && NETWORK_REASONS[code]) ?? 'the connection failed';
	return makeError(
		node,
		`Could not reach the ERP API at ${host}: ${reason}`,
		joinSentences(
			code ? `Network error code: ${code}.` : undefined,
			!code && cause ? withPeriod(redactSecrets(cause, context.secrets).slice(0, 300)) : undefined,
			attempts > 1 ? `Gave up after ${attempts} attempts.` : undefined,
			code === 'ECONNREFUSED' ? undefined : mayHaveBeenApplied(context.method, context.resendable),
		),
		{ code: code ? code.toLowerCase() : 'network_error' },
		context.itemIndex,
	);
}

/** The server at `host` offers only TLS older than 1.3: nothing was sent, never retried. */
export function tlsVersionError(node: INode, host: string, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		`The ERP server at https://${host} does not offer TLS 1.3, which the ERP API requires`,
		'The connection was refused during the TLS handshake, before any data was sent: the server (or a proxy in front of it) offers only older TLS versions. Check the Base URL, or ask the ERP provider or your administrator to enable TLS 1.3.',
		{ code: 'tls_version_unsupported' },
		itemIndex,
	);
}

export function reconnectError(node: INode, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		'The ERP OAuth2 credential must be reconnected: the ERP refused its refresh token',
		'The refresh token expired, was revoked, or was already used. Open the credential and click "Reconnect" (or "Connect my account") to sign in again.',
		{ code: 'invalid_grant', httpCode: 401 },
		itemIndex,
	);
}

export function notConnectedError(node: INode, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		'The ERP OAuth2 credential is not connected yet',
		'Open the credential and click "Connect my account" to sign in to the ERP.',
		{ code: 'oauth_not_connected' },
		itemIndex,
	);
}
