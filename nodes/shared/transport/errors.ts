// Error mapping: every failed request becomes a NodeApiError that says what happened in a user's
// terms and keeps the API's error code. Errors are built from clean objects (never from the HTTP
// library's error, whose config holds the Authorization header), and API text is scrubbed of
// anything that looks like a key or token.
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';

import type { HttpMethod } from './rateLimit';
import { isIdempotentMethod } from './rateLimit';

/** Scope each event of the trigger needs (the contract's table). */
export const EVENT_SCOPES: Record<string, string> = {
	'vente.creee': 'factures:read',
	'facture.payee': 'factures:read',
	'stock.bas': 'articles:read',
	'tva.declaree': 'compta:read',
	'paie.validee': 'paie:read',
};

/** Scope each endpoint needs (the contract's table). `/webhooks` depends on the events: see `requiredScopes`. */
const ENDPOINT_SCOPES: Array<{ method: HttpMethod; path: RegExp; scope: string }> = [
	{ method: 'GET', path: /^\/articles(\/[^/]+)?$/, scope: 'articles:read' },
	{ method: 'GET', path: /^\/stock\/mouvements$/, scope: 'articles:read' },
	{ method: 'POST', path: /^\/articles$/, scope: 'articles:write' },
	{ method: 'PATCH', path: /^\/articles\/[^/]+$/, scope: 'articles:write' },
	{ method: 'GET', path: /^\/clients(\/[^/]+)?$/, scope: 'clients:read' },
	{ method: 'POST', path: /^\/clients$/, scope: 'clients:write' },
	{ method: 'PATCH', path: /^\/clients\/[^/]+$/, scope: 'clients:write' },
	{ method: 'GET', path: /^\/factures(\/[^/]+)?$/, scope: 'factures:read' },
	{ method: 'POST', path: /^\/factures$/, scope: 'factures:write' },
	{ method: 'POST', path: /^\/reglements$/, scope: 'factures:write' },
	{ method: 'GET', path: /^\/comptabilite\/grand-livre$/, scope: 'compta:read' },
	// Beyond the spec's table (README, "API assumptions"), reached with the API Request operation.
	{ method: 'DELETE', path: /^\/articles\/[^/]+$/, scope: 'articles:write' },
	{ method: 'GET', path: /^\/paie\/bulletins$/, scope: 'paie:read' },
	{ method: 'GET', path: /^\/audit\/journal$/, scope: 'audit:read' },
];

/** The scopes a request needs, per the contract; empty when unknown. */
export function requiredScopes(method: HttpMethod, path: string, body?: IDataObject): string[] {
	const cleanPath = path.split('?')[0].replace(/\/+$/, '');
	if (/^\/webhooks(\/|$)/.test(cleanPath)) {
		const events = Array.isArray(body?.events) ? (body.events as unknown[]).map(String) : [];
		const selected = events.includes('*') ? Object.keys(EVENT_SCOPES) : events;
		return [...new Set(selected.map((event) => EVENT_SCOPES[event]).filter(Boolean))];
	}
	const match = ENDPOINT_SCOPES.find(
		(entry) => entry.method === method && entry.path.test(cleanPath),
	);
	return match ? [match.scope] : [];
}

/**
 * Replaces the credential's own secret values (API key, tokens, client and webhook secrets: an API
 * may echo them in its errors), then anything that looks like a key, bearer token or webhook secret.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
	let result = text;
	for (const secret of secrets) {
		if (secret.length >= 6) result = result.split(secret).join('***');
	}
	return result
		.replace(/sk_(live|test)_[A-Za-z0-9_-]+/g, 'sk_$1_***')
		.replace(/whsec_[A-Za-z0-9+/=_-]+/g, 'whsec_***')
		.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1***');
}

/** The secret values of a credential (either type), longest first, for `redactSecrets`. */
export function secretsOf(credentials: IDataObject | undefined): string[] {
	if (!credentials) return [];
	const token = (credentials.oauthTokenData ?? {}) as IDataObject;
	return [
		credentials.apiKey,
		credentials.clientSecret,
		credentials.webhookSecret,
		token.access_token,
		token.refresh_token,
		token.id_token,
	]
		.filter((value): value is string => typeof value === 'string' && value.trim() !== '')
		.map((value) => value.trim())
		.sort((a, b) => b.length - a.length);
}

export interface ErpApiErrorDetail {
	field?: string;
	message: string;
}

/** The API's error, read tolerantly from a body of any shape. */
export interface ErpApiErrorBody {
	code?: string;
	message?: string;
	details?: ErpApiErrorDetail[];
}

type TextReader = (value: unknown) => string | undefined;

function textReader(secrets: readonly string[]): TextReader {
	return (value) => {
		if (typeof value === 'string' && value.trim() !== '') {
			return redactSecrets(value.trim(), secrets).slice(0, 500);
		}
		if (typeof value === 'number') return String(value);
		return undefined;
	};
}

function readDetails(value: unknown, text: TextReader): ErpApiErrorDetail[] | undefined {
	if (!Array.isArray(value)) return undefined;
	const details: ErpApiErrorDetail[] = [];
	for (const entry of value) {
		if (typeof entry === 'string') {
			details.push({ message: text(entry) ?? '' });
		} else if (entry && typeof entry === 'object') {
			const record = entry as IDataObject;
			const field = text(record.field) ?? text(record.path) ?? text(record.param);
			details.push({ field, message: text(record.message) ?? text(record.error) ?? '' });
		}
	}
	return details.length ? details : undefined;
}

/**
 * Reads `{error: {code, message, details}}` (the contract), and also a bare `message`,
 * an `error` string (OAuth style, with `error_description`), an `errors` array or a non-JSON body.
 * Every text is scrubbed of `secrets` (and of anything that looks like one).
 */
export function readApiError(body: unknown, secrets: readonly string[] = []): ErpApiErrorBody {
	const text = textReader(secrets);
	if (typeof body === 'string') {
		const stripped = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
		return { message: text(stripped)?.slice(0, 200) };
	}
	if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
	const record = body as IDataObject;
	if (record.error && typeof record.error === 'object' && !Array.isArray(record.error)) {
		const inner = record.error as IDataObject;
		return {
			code: text(inner.code),
			message: text(inner.message),
			details: readDetails(inner.details, text) ?? readDetails(inner.errors, text),
		};
	}
	if (typeof record.error === 'string') {
		return {
			code: text(record.code) ?? text(record.error),
			message: text(record.error_description) ?? text(record.message) ?? text(record.error),
			details: readDetails(record.details, text),
		};
	}
	const errors = readDetails(record.errors, text);
	return {
		code: text(record.code),
		message: text(record.message) ?? errors?.[0]?.message,
		details: readDetails(record.details, text) ?? errors,
	};
}

/** What the transport knows about a failed request when it builds the error. */
export interface ErpErrorContext {
	method: HttpMethod;
	path: string;
	body?: IDataObject;
	resource?: string;
	itemIndex?: number;
	authentication: 'apiKey' | 'oAuth2';
	/** Whether the request is resent after a lost answer (default: per `isIdempotentMethod`). */
	resendable?: boolean;
	/** The credential's secret values, scrubbed from anything the API sends back. */
	secrets?: readonly string[];
}

const ERROR_MARK = 'erp';

/** The ERP facts kept on every error the transport throws (in `error.context.erp`). */
interface ErpErrorFacts extends IDataObject {
	code: string | null;
	httpCode: number | null;
	details: IDataObject[] | null;
}

function makeError(
	node: INode,
	message: string,
	description: string | undefined,
	facts: { code?: string; httpCode?: number; details?: ErpApiErrorDetail[] },
	itemIndex: number | undefined,
): NodeApiError {
	const errorResponse: JsonObject = { message };
	const error = new NodeApiError(node, errorResponse, {
		message,
		description,
		httpCode: facts.httpCode !== undefined ? String(facts.httpCode) : undefined,
		itemIndex,
	});
	// NodeApiError swaps messages that contain common network codes; keep ours.
	error.message = message;
	const kept: ErpErrorFacts = {
		code: facts.code ?? null,
		httpCode: facts.httpCode ?? null,
		details: facts.details ? facts.details.map((d) => ({ ...d }) as IDataObject) : null,
	};
	error.context[ERROR_MARK] = kept;
	return error;
}

function formatDetails(details: ErpApiErrorDetail[] | undefined): string | undefined {
	if (!details?.length) return undefined;
	return details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ');
}

function joinSentences(...parts: Array<string | undefined>): string | undefined {
	const kept = parts.filter((part): part is string => !!part && part.trim() !== '');
	return kept.length ? kept.join(' ') : undefined;
}

function withPeriod(message: string): string {
	return /[.!?]$/.test(message) ? message : `${message}.`;
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
	const apiMessage = api.message ? withPeriod(api.message) : undefined;
	const fieldText = formatDetails(api.details);
	const codeText = api.code ? `Error code: ${api.code}.` : undefined;
	const credentialWord = context.authentication === 'oAuth2' ? 'access token' : 'API key';
	let message: string;
	let description: string | undefined;
	switch (true) {
		case status === 400:
			message = fieldText
				? `The ERP API rejected the request as invalid: ${fieldText}`
				: `The ERP API rejected the request as invalid${api.message ? `: ${api.message}` : ''}`;
			description = joinSentences(apiMessage, codeText);
			break;
		case status === 401:
			message = `The ERP API refused the credential: the ${credentialWord} is missing, invalid, expired or revoked`;
			description = joinSentences(
				apiMessage,
				context.authentication === 'oAuth2'
					? 'Reconnect the credential, or check that the Base URL points to the right environment.'
					: 'Check the key in the credential, its environment, and that it has not been revoked (ERP settings > API > Keys).',
				codeText,
			);
			break;
		case status === 403: {
			const scopes = requiredScopes(context.method, context.path, context.body);
			// An endpoint the contract does not list: the API's own message names the scope.
			message = scopes.length
				? `The credential lacks the permission for this request: it needs the scope ${scopes.join(', ')}`
				: `The credential lacks the permission for this request${api.message ? `: ${api.message}` : ''}`;
			description = joinSentences(
				scopes.length ? apiMessage : undefined,
				context.authentication === 'oAuth2'
					? "Add the scope in the credential's Scopes and reconnect it."
					: 'Create a key with the needed scope in the ERP settings (API > Keys) and use it in the credential.',
				codeText,
			);
			break;
		}
		case status === 404:
			message = `${context.resource ?? `The requested resource (${context.method} ${context.path})`} was not found`;
			description = joinSentences(apiMessage, codeText);
			break;
		case status === 409:
			message = `The ERP refused the operation (business rule${api.code ? ` ${api.code}` : ''})${api.message ? `: ${api.message}` : ''}`;
			description = joinSentences(apiMessage, codeText);
			break;
		case status === 422:
			if (api.code === 'idempotency_key_reused') {
				message =
					'This Idempotency-Key was already used for a different request in the last 24 hours';
				description = joinSentences(
					apiMessage,
					'Use a different custom key for each distinct request (Request Options > Idempotency Key), or choose Automatic.',
					codeText,
				);
				break;
			}
			message = fieldText
				? `The ERP API rejected the data: ${fieldText}`
				: `The ERP API rejected the data${api.message ? `: ${api.message}` : ''}`;
			description = joinSentences(apiMessage, codeText);
			break;
		case status === 429:
			message = 'The ERP API rate limit is still exceeded after several retries';
			description = joinSentences(
				apiMessage,
				'The ERP allows a fixed number of requests per minute for each credential. Slow the workflow down or run it later.',
				codeText,
			);
			break;
		case status >= 500:
			message = `The ERP API failed with a server error (HTTP ${status})`;
			description = joinSentences(apiMessage, codeText);
			break;
		default:
			message = `The ERP API answered HTTP ${status}${api.message ? `: ${api.message}` : ''}`;
			description = joinSentences(codeText);
	}
	return makeError(
		node,
		message,
		joinSentences(description, extra),
		{ code: api.code, httpCode: status, details: api.details },
		context.itemIndex,
	);
}

/** The daily quota is exhausted: never slept through. */
export function dailyQuotaError(
	node: INode,
	body: unknown,
	waitSeconds: number | undefined,
	nowMs: number,
	context: ErpErrorContext,
): NodeApiError {
	const api = readApiError(body, context.secrets);
	const resumes =
		waitSeconds !== undefined
			? ` Requests are accepted again from ${new Date(nowMs + waitSeconds * 1000).toISOString()}.`
			: '';
	return makeError(
		node,
		'The daily request quota of the ERP API is exhausted',
		`The account has used all its requests for today (UTC).${resumes} Run the workflow again then, or ask the ERP provider for a larger quota.`,
		{ code: api.code ?? 'daily_quota_exceeded', httpCode: 429, details: api.details },
		context.itemIndex,
	);
}

/** The server asked for a wait longer than the user's cap. */
export function waitCapError(
	node: INode,
	status: number,
	body: unknown,
	waitSeconds: number,
	maxWaitSeconds: number,
	context: ErpErrorContext,
): NodeApiError {
	const api = readApiError(body, context.secrets);
	return makeError(
		node,
		`The ERP API asks to wait ${Math.ceil(waitSeconds)} s before retrying, longer than the Max Rate-Limit Wait of ${maxWaitSeconds} s`,
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

/**
 * For a request whose answer was lost and that was not resent (`resendable` false, by default per
 * `isIdempotentMethod`): what the user should know before running it again.
 */
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

/** A list answer whose shape is not the list envelope. */
export function listShapeError(node: INode, path: string, itemIndex?: number): NodeApiError {
	return makeError(
		node,
		`The ERP API answered GET ${path} with something that is not a list (no "data" array)`,
		'Check that the Base URL points to the ERP API v1.',
		{ code: 'invalid_list_response' },
		itemIndex,
	);
}

/** Walks an error and its causes (n8n wraps the HTTP library's error in NodeApiError). */
export function errorChain(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	let current: unknown = error;
	while (
		current &&
		typeof current === 'object' &&
		chain.length < 6 &&
		!chain.includes(current as Record<string, unknown>)
	) {
		chain.push(current as Record<string, unknown>);
		current = (current as { cause?: unknown }).cause;
	}
	return chain;
}

/**
 * The JSON for an error item (continueOnFail): `{ message, code, httpCode, details?, description? }`.
 * Works for any error; `code` and `httpCode` are null when the error did not come from the API.
 */
export function erpErrorToJson(error: unknown): IDataObject {
	const record = (error ?? {}) as { message?: unknown; description?: unknown };
	// The node may have wrapped the transport's error (e.g. in a NodeOperationError): look at causes.
	let facts: ErpErrorFacts | undefined;
	let description: string | undefined;
	for (const entry of errorChain(error)) {
		facts ??= (entry.context as IDataObject | undefined)?.[ERROR_MARK] as ErpErrorFacts | undefined;
		if (
			description === undefined &&
			typeof entry.description === 'string' &&
			entry.description !== ''
		) {
			description = entry.description;
		}
	}
	const json: IDataObject = {
		message: typeof record.message === 'string' ? record.message : String(error),
		code: facts?.code ?? null,
		httpCode: facts?.httpCode ?? null,
	};
	if (description !== undefined) json.description = description;
	if (facts?.details) json.details = facts.details;
	return json;
}
