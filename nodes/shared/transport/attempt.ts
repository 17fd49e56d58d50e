// One attempt, in its turn (pacer.ts): what it sends through n8n's helper (URL, headers, a POST's
// Idempotency-Key, timeout, TLS minimum) and, for request.ts, what came of it: an HTTP answer (also
// one n8n threw), a network failure, or a failure no retry can help. The automatic Idempotency-Key
// comes from the request (workflow, node, method, path, body), never the execution, so Retry On
// Fail and a re-run send the same key and the server replays the first answer.
import { createHash } from 'crypto';
import type { IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { withTlsMinimum } from '../tls';
import { errorChain } from './apiError';
import type { ResolvedCredential } from './credentials';
import { notConnectedError, reconnectError, tlsVersionError } from './errors';
import { clockMs, settle } from './pacer';
import type { Turn } from './pacer';
import { readRateLimitHeaders } from './rateHeaders';
import type { RateLimitInfo } from './rateHeaders';
import { DEFAULT_TIMEOUT_SECONDS } from './settings';
import type { ErpContext, ErpRequest, ErpRequestSettings } from './settings';

/** JSON with object keys sorted at every level, so equal bodies give equal text. */
export function canonicalJson(value: unknown): string {
	if (value === undefined) return 'null';
	if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
	if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry)).join(',')}]`;
	const record = value as Record<string, unknown>;
	const keys = Object.keys(record)
		.filter((key) => record[key] !== undefined)
		.sort();
	return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

export function deriveIdempotencyKey(input: {
	workflowId: string;
	nodeName: string;
	method: string;
	path: string;
	body: unknown;
}): string {
	const { workflowId, nodeName, method, path, body } = input;
	const identity = canonicalJson([workflowId, nodeName, method.toUpperCase(), path, body ?? null]);
	return `n8n-${createHash('sha256').update(identity).digest('hex')}`;
}

/** Key to send (undefined: none): the request's (false: none), else the setting's (settings.ts). */
export function resolveIdempotencyKey(
	requestChoice: string | false | undefined,
	setting: string | undefined,
	derive: () => string,
): string | undefined {
	if (requestChoice === false) return undefined;
	if (typeof requestChoice === 'string' && requestChoice.trim() !== '') return requestChoice.trim();
	const chosen = (setting ?? 'auto').trim();
	if (chosen === 'off') return undefined;
	if (chosen === 'auto' || chosen === '') return derive();
	return chosen;
}

export function requestPath(request: ErpRequest): string {
	return request.path.startsWith('/') ? request.path : `/${request.path}`;
}

/** n8n's request options for every attempt of `request` (each attempt copies the headers). */
export function httpOptions(
	context: ErpContext,
	resolved: ResolvedCredential,
	request: ErpRequest,
	settings: ErpRequestSettings,
): IHttpRequestOptions {
	const headers: IDataObject = { Accept: 'application/json' };
	const key =
		request.method === 'POST'
			? resolveIdempotencyKey(request.idempotencyKey, settings.idempotencyKey, () =>
					deriveIdempotencyKey({
						workflowId: String(context.getWorkflow().id ?? ''),
						nodeName: resolved.node.name,
						method: request.method,
						path: requestPath(request),
						body: request.body ?? {},
					}),
				)
			: undefined;
	if (key !== undefined) headers['Idempotency-Key'] = key;
	// https: TLS 1.3 at least, as the API requires (../tls.ts).
	const options: IHttpRequestOptions = withTlsMinimum({
		method: request.method,
		url: `${resolved.baseUrl}${requestPath(request)}`,
		headers,
		qs: request.qs,
		json: true,
		returnFullResponse: true,
		timeout: (settings.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
		// OAuth2: let 401 throw so that n8n refreshes the access token and retries once.
		ignoreHttpStatusErrors:
			resolved.authentication === 'oAuth2' ? { ignore: true, except: [401] } : true,
	});
	if (request.body !== undefined && request.method !== 'GET') options.body = request.body;
	return options;
}

type Chain = ReturnType<typeof errorChain>;
type HttpAnswer = { status: number; headers: IDataObject; body: unknown };

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

/** `code` and NodeApiError's `httpCode`: the wrapped error's code (n8n ~1.99-2.33 keep no more). */
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

// A failure no retry can help, as an error (else undefined): the OAuth2 credential must be
// reconnected (refresh token refused) or was never connected, or the server offers no TLS 1.3
// (../tls.ts; OpenSSL reports the server's protocol_version alert or a version it refuses).
function fatalError(chain: Chain, node: INode, host: string, itemIndex?: number) {
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

/** What happened on one attempt, as far as resending is concerned. */
export type AttemptOutcome =
	| { kind: 'status'; status: number; apiCode?: string; info: RateLimitInfo }
	| { kind: 'badBody'; info: RateLimitInfo }
	| { kind: 'network'; code?: string; text?: string };

export type AttemptResult =
	| { done: true; statusCode: number; body: unknown }
	| {
			done: false;
			outcome: AttemptOutcome;
			/** The HTTP answer; undefined when there was none (network failure). */
			answer?: HttpAnswer;
			/** When the outcome was known, by the pacer's clock (`clockMs`). */
			atMs: number;
	  };

/** Sends once and settles `turn`; throws at once a failure no retry can help (`fatalError`). */
export async function attemptOnce(
	context: ErpContext,
	resolved: ResolvedCredential,
	options: IHttpRequestOptions,
	turn: Turn,
	itemIndex: number | undefined,
): Promise<AttemptResult> {
	let answer: HttpAnswer | undefined;
	let chain: Chain = [];
	try {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			resolved.credentialType,
			{ ...options, headers: { ...options.headers } },
			resolved.credentialsDecrypted && { credentialsDecrypted: resolved.credentialsDecrypted },
		)) as { statusCode: number; headers: IDataObject; body: unknown };
		answer = { status: response.statusCode, headers: response.headers ?? {}, body: response.body };
	} catch (error) {
		chain = errorChain(error);
		const fatal = fatalError(chain, resolved.node, resolved.host, itemIndex);
		if (fatal) {
			settle(turn);
			throw fatal;
		}
		answer = answerFromError(chain);
	}
	const atMs = clockMs();
	if (answer === undefined) {
		settle(turn, undefined, atMs);
		const code = networkCodeFromError(chain);
		const text = chain
			.map((entry) => entry.message)
			.find((m): m is string => typeof m === 'string' && m !== '');
		return { done: false, outcome: { kind: 'network', code, text }, atMs };
	}
	const info = readRateLimitHeaders(answer.headers, Date.now());
	const code = (answer.body as { error?: { code?: unknown } } | undefined)?.error?.code;
	const apiCode = typeof code === 'string' ? code : undefined;
	settle(turn, { status: answer.status, apiCode, info }, atMs);
	if (answer.status >= 200 && answer.status < 300) {
		// Readable: JSON, or no body where none is expected (a 204, a DELETE); else cut off, HTML...
		const empty = answer.body === undefined || answer.body === null || answer.body === '';
		const readable = empty ? options.method === 'DELETE' : typeof answer.body === 'object';
		if (answer.status === 204 || readable) {
			return { done: true, statusCode: answer.status, body: empty ? {} : answer.body };
		}
		return { done: false, outcome: { kind: 'badBody', info }, answer, atMs };
	}
	const outcome = { kind: 'status' as const, status: answer.status, apiCode, info };
	return { done: false, outcome, answer, atMs };
}
