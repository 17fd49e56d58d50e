// The one door to the ERP API. Every HTTP call from nodes/ goes through these functions.
//
// Exports (fixed by CONTRIBUTING.md; additions marked +):
//   erpApiRequest.call(this, request: ErpRequest, settings?: ErpRequestSettings): Promise<any>
//   erpPaginate.call(this, path, qs, { pageSize?, max?, +itemIndex? }, settings?): AsyncGenerator<IDataObject[]>
//   erpGetMany.call(this, path, qs, { returnAll, limit?, +itemIndex? }, settings?): Promise<IDataObject[]>
//   + getRequestSettings(context, itemIndex?): ErpRequestSettings   reads the `requestOptions` parameter
//   + getCredentialType(context, itemIndex?): 'erpApi' | 'erpOAuth2Api'
//   + getGuardedCredentials(context, itemIndex?): Promise<credential data>   guards applied, nothing sent
//   + erpErrorToJson(error): { message, code, httpCode, details?, description? }   for continueOnFail items
//   + requiredScopes(method, path, body?): string[];  EVENT_SCOPES: event -> scope
//   + ErpRequestSettings.timeoutSeconds?: number   (per attempt, default 30; not a UI option)
//   + shared parameter descriptions live in ../descriptions.ts (authenticationDescription,
//     erpCredentialsDescription, requestOptionsDescription); guards in ../guards.ts.
//
// Behaviour: guards before anything leaves; JSON in/out; NodeApiError with user-terms messages;
// 429 honoured (Retry-After, else RateLimit-Reset, else full-jitter backoff) and paced ahead: every
// request takes a slot of its key's budget (RateLimit-Remaining/Reset, requests in flight counted)
// before it is sent, waiting in order for the reset when none is left (pacing.ts); GET/DELETE also retried on 5xx, resets, timeouts and unreadable bodies;
// POST/PATCH only on 429 and connection refused; every POST carries an Idempotency-Key.
// Errors: NodeOperationError when a guard refuses (nothing sent) or a list repeats its cursor;
// NodeApiError for everything else, with the API's code kept (read it with erpErrorToJson, which
// also looks through a wrapper, so `throw new NodeApiError(this.getNode(), error as JsonObject)`
// in a node's catch keeps everything: it returns a NodeApiError unchanged). Error texts never
// carry request headers, and the credential's own secret values are scrubbed from what the API
// sends back. Waits use `sleep` from n8n-workflow and end when the execution is cancelled.
import { NodeOperationError, sleep } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IWebhookFunctions,
} from 'n8n-workflow';

import { DEFAULT_MAX_WAIT_SECONDS, MAX_WAIT_CAP_SECONDS } from '../descriptions';
import { credentialProblem, normalizeBaseUrl } from '../guards';
import {
	badBodyError,
	dailyQuotaError,
	errorChain,
	httpStatusError,
	listShapeError,
	mayHaveBeenApplied,
	networkError,
	notConnectedError,
	reconnectError,
	secretsOf,
	waitCapError,
} from './errors';
import type { ErpErrorContext } from './errors';
import { deriveIdempotencyKey, resolveIdempotencyKey } from './idempotency';
import { budgetKey, settle, takeSlot } from './pacing';
import { decideRetry, readRateLimitHeaders } from './rateLimit';
import type { AttemptOutcome, RateLimitInfo } from './rateLimit';

export { erpErrorToJson, requiredScopes, EVENT_SCOPES } from './errors';

export type ErpContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export interface ErpRequest {
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	/** Relative to the credential's baseUrl, e.g. '/articles'. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** For error messages (and the item's credentials in an execute context). */
	itemIndex?: number;
	/** Names the resource in a 404 message, e.g. 'Article art_123'. */
	resource?: string;
	/** POST only. A string is sent as is, false sends none, undefined follows the settings. */
	idempotencyKey?: string | false;
}

export interface ErpRequestSettings {
	/** Longest single wait asked for by the API before failing instead. Default 60. */
	maxWaitSeconds?: number;
	/** 'auto' (default): derived key; 'off': none; any other string: that key. */
	idempotencyKey?: 'auto' | 'off' | string;
	/** Timeout of one attempt, in seconds. Default 30. */
	timeoutSeconds?: number;
}

export type ErpCredentialType = 'erpApi' | 'erpOAuth2Api';

const DEFAULT_TIMEOUT_SECONDS = 30;
const MAX_PAGE_SIZE = 100;

function isExecuteContext(context: ErpContext): context is IExecuteFunctions {
	return typeof (context as IExecuteFunctions).getInputData === 'function';
}

/** A node parameter, from any kind of context. */
function nodeParameter(
	context: ErpContext,
	name: string,
	itemIndex: number | undefined,
	fallback: unknown,
): unknown {
	if (isExecuteContext(context)) {
		return context.getNodeParameter(name, itemIndex ?? 0, fallback);
	}
	return (context as IHookFunctions).getNodeParameter(name, fallback);
}

function authenticationOf(context: ErpContext, itemIndex?: number): 'apiKey' | 'oAuth2' {
	return nodeParameter(context, 'authentication', itemIndex, 'apiKey') === 'oAuth2'
		? 'oAuth2'
		: 'apiKey';
}

/** The credential type the node's `authentication` parameter selects (apiKey when it has none). */
export function getCredentialType(context: ErpContext, itemIndex?: number): ErpCredentialType {
	return authenticationOf(context, itemIndex) === 'oAuth2' ? 'erpOAuth2Api' : 'erpApi';
}

/** Longest custom Idempotency-Key accepted (the common limit of APIs that take one). */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Reads and checks the node's `requestOptions` collection (see requestOptionsDescription).
 * An invalid value is a NodeOperationError naming the option, raised before any request.
 */
export function getRequestSettings(context: ErpContext, itemIndex?: number): ErpRequestSettings {
	const options = (nodeParameter(context, 'requestOptions', itemIndex, {}) ?? {}) as IDataObject;
	const invalid = (option: string, expected: string) =>
		new NodeOperationError(context.getNode(), `Request Options › ${option}: ${expected}`, {
			itemIndex,
		});
	const settings: ErpRequestSettings = {};

	const { maxWaitSeconds } = options;
	if (maxWaitSeconds !== undefined && maxWaitSeconds !== null && maxWaitSeconds !== '') {
		const seconds = typeof maxWaitSeconds === 'string' ? Number(maxWaitSeconds) : maxWaitSeconds;
		if (
			typeof seconds !== 'number' ||
			!Number.isFinite(seconds) ||
			seconds < 0 ||
			seconds > MAX_WAIT_CAP_SECONDS
		) {
			throw invalid(
				'Max Rate-Limit Wait (Seconds)',
				`expected a number of seconds from 0 to ${MAX_WAIT_CAP_SECONDS}`,
			);
		}
		settings.maxWaitSeconds = seconds;
	}

	const { idempotency, customIdempotencyKey } = options;
	let custom: string | undefined;
	if (
		customIdempotencyKey !== undefined &&
		customIdempotencyKey !== null &&
		customIdempotencyKey !== ''
	) {
		if (typeof customIdempotencyKey !== 'string' && typeof customIdempotencyKey !== 'number') {
			throw invalid('Custom Idempotency Key', 'expected text, such as an order number');
		}
		custom = String(customIdempotencyKey).trim();
		if (custom.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7E]*$/.test(custom)) {
			throw invalid(
				'Custom Idempotency Key',
				`expected at most ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (letters, digits, - _ . and the like)`,
			);
		}
	}
	if (
		idempotency === undefined ||
		idempotency === null ||
		idempotency === '' ||
		idempotency === 'auto'
	) {
		settings.idempotencyKey = 'auto';
	} else if (idempotency === 'off') {
		settings.idempotencyKey = 'off';
	} else if (idempotency === 'custom') {
		if (!custom) {
			throw invalid(
				'Custom Idempotency Key',
				'empty: enter a key (for example an order number) or set Idempotency Key to Automatic',
			);
		}
		settings.idempotencyKey = custom;
	} else {
		throw invalid('Idempotency Key', 'expected Automatic (auto), Custom (custom) or Off (off)');
	}
	return settings;
}

/**
 * The node's ERP credential after the guards (key prefix vs environment, https, /v1): for code
 * that needs credential fields without sending a request, e.g. the trigger's manual mode reading
 * `webhookSecret`. Throws NodeOperationError naming the problem; never shows the key.
 */
export async function getGuardedCredentials(
	context: ErpContext,
	itemIndex?: number,
): Promise<ICredentialDataDecryptedObject> {
	const authentication = authenticationOf(context, itemIndex);
	const credentialType: ErpCredentialType = authentication === 'oAuth2' ? 'erpOAuth2Api' : 'erpApi';
	const credentials = await (context as IExecuteFunctions).getCredentials(
		credentialType,
		itemIndex,
	);
	const problem = credentialProblem(credentials, authentication);
	if (problem !== undefined) {
		throw new NodeOperationError(context.getNode(), problem, { itemIndex, level: 'warning' });
	}
	return credentials;
}

interface HttpAnswer {
	status: number;
	headers: IDataObject;
	body: unknown;
}

function answerFromError(chain: Array<Record<string, unknown>>): HttpAnswer | undefined {
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

function networkCodeFromError(chain: Array<Record<string, unknown>>): string | undefined {
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

function isReconnectNeeded(chain: Array<Record<string, unknown>>): boolean {
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

function isNotConnected(chain: Array<Record<string, unknown>>): boolean {
	return chain.some(
		(entry) =>
			typeof entry.message === 'string' &&
			/credentials not connected|unable to sign without access token/i.test(entry.message),
	);
}

/** A 2xx body that is not the JSON we asked for (cut off, HTML, ...). */
function isUnreadableBody(body: unknown, status: number, method: string): boolean {
	if (status === 204) return false;
	if (body === undefined || body === null || body === '') return method !== 'DELETE';
	return typeof body !== 'object';
}

/** What a request needs from the node and its credential, resolved once (per request or per list). */
interface Prepared {
	node: INode;
	authentication: 'apiKey' | 'oAuth2';
	credentialType: ErpCredentialType;
	/** API key credentials only: handed to n8n so that it does not decrypt them again. */
	credentialsDecrypted?: ICredentialsDecrypted;
	baseUrl: string;
	host: string;
	paceKey: string;
	/** The credential's secret values, scrubbed from error texts. */
	secrets: string[];
}

async function prepare(context: ErpContext, itemIndex: number | undefined): Promise<Prepared> {
	const node = context.getNode();
	const authentication = authenticationOf(context, itemIndex);
	const credentialType: ErpCredentialType = authentication === 'oAuth2' ? 'erpOAuth2Api' : 'erpApi';
	const credentials = await getGuardedCredentials(context, itemIndex);
	if (authentication === 'oAuth2') {
		const token = credentials.oauthTokenData as { access_token?: unknown } | undefined;
		if (typeof token?.access_token !== 'string' || token.access_token === '') {
			throw notConnectedError(node, itemIndex);
		}
	}
	const baseUrl = normalizeBaseUrl(credentials.baseUrl);
	const reference = node.credentials?.[credentialType];
	// The server limits per key (or OAuth2 grant): one budget per credential type, base URL and
	// key (the credential itself for OAuth2, whose tokens change), named by a hash.
	const key =
		typeof credentials.apiKey === 'string' && credentials.apiKey !== ''
			? `key:${credentials.apiKey}`
			: `credential:${reference?.id ?? reference?.name ?? ''}`;
	return {
		node,
		authentication,
		credentialType,
		credentialsDecrypted:
			authentication === 'apiKey' && reference?.id
				? { id: reference.id, name: reference.name, type: credentialType, data: credentials }
				: undefined,
		baseUrl,
		host: new URL(baseUrl).host,
		paceKey: budgetKey(credentialType, baseUrl, key),
		secrets: secretsOf(credentials),
	};
}

/** The secrets to scrub from an error: OAuth2 tokens may have been refreshed since `prepare`. */
async function currentSecrets(context: ErpContext, prepared: Prepared): Promise<string[]> {
	if (prepared.authentication !== 'oAuth2') return prepared.secrets;
	try {
		const fresh = await (context as IExecuteFunctions).getCredentials(prepared.credentialType);
		return [...new Set([...secretsOf(fresh), ...prepared.secrets])].sort(
			(a, b) => b.length - a.length,
		);
	} catch {
		return prepared.secrets;
	}
}

/**
 * Sends one request to the ERP API and returns the parsed JSON body (`{}` for an empty answer).
 * Throws NodeOperationError when a guard refuses the credential (nothing is sent), NodeApiError
 * for anything the API or the network answered, after the retries the method allows.
 */
export async function erpApiRequest(
	this: ErpContext,
	request: ErpRequest,
	settings: ErpRequestSettings = {},
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
	return await send(this, await prepare(this, request.itemIndex), request, settings);
}

async function send(
	context: ErpContext,
	prepared: Prepared,
	request: ErpRequest,
	settings: ErpRequestSettings,
): Promise<unknown> {
	const { node, authentication, credentialType, baseUrl, paceKey } = prepared;
	const { method, itemIndex } = request;
	const path = request.path.startsWith('/') ? request.path : `/${request.path}`;
	const maxWaitSeconds = settings.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
	const errorContext: ErpErrorContext = {
		method,
		path,
		body: request.body,
		resource: request.resource,
		itemIndex,
		authentication,
	};

	const headers: IDataObject = { Accept: 'application/json' };
	if (method === 'POST') {
		// Computed once: every attempt of this request carries the same key.
		const key = resolveIdempotencyKey(request.idempotencyKey, settings.idempotencyKey, () =>
			deriveIdempotencyKey({
				workflowId: String(context.getWorkflow().id ?? ''),
				nodeName: node.name,
				method,
				path,
				body: request.body ?? {},
			}),
		);
		if (key !== undefined) headers['Idempotency-Key'] = key;
	}

	const options: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		headers,
		qs: request.qs,
		json: true,
		returnFullResponse: true,
		timeout: (settings.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
		// OAuth2: let 401 throw so that n8n refreshes the access token and retries once.
		ignoreHttpStatusErrors: authentication === 'oAuth2' ? { ignore: true, except: [401] } : true,
	};
	if (request.body !== undefined && method !== 'GET') options.body = request.body;
	// Waits end early when the execution is cancelled (the signal exists in execute contexts).
	const cancelSignal = (context as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	const credentialOptions = prepared.credentialsDecrypted
		? { credentialsDecrypted: prepared.credentialsDecrypted }
		: undefined;

	let retryFirst = false;
	for (let retry = 0; ; retry++) {
		// A slot of the key's budget, taken before sending (in order; a retry goes first). Past Max
		// Rate-Limit Wait it is sent anyway: the server's 429 then says how long, and the cap fails clearly.
		const slot = await takeSlot(paceKey, {
			maxWaitMs: maxWaitSeconds * 1000,
			signal: cancelSignal,
			first: retryFirst,
		});
		let answer: HttpAnswer | undefined;
		let networkCode: string | undefined;
		let failureText: string | undefined;
		try {
			const response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				credentialType,
				{ ...options, headers: { ...headers } },
				credentialOptions,
			)) as { statusCode: number; headers: IDataObject; body: unknown };
			answer = {
				status: response.statusCode,
				headers: response.headers ?? {},
				body: response.body,
			};
		} catch (error) {
			const chain = errorChain(error);
			const fatal = isReconnectNeeded(chain)
				? reconnectError(node, itemIndex)
				: isNotConnected(chain)
					? notConnectedError(node, itemIndex)
					: undefined;
			if (fatal) {
				settle(slot);
				throw fatal;
			}
			answer = answerFromError(chain);
			if (answer === undefined) {
				networkCode = networkCodeFromError(chain);
				failureText = chain
					.map((entry) => entry.message)
					.find((m): m is string => typeof m === 'string' && m !== '');
			}
		}

		const now = Date.now();
		let outcome: AttemptOutcome;
		if (answer !== undefined) {
			const info: RateLimitInfo = readRateLimitHeaders(answer.headers, now);
			const apiCode = (answer.body as { error?: { code?: unknown } } | undefined)?.error?.code;
			settle(slot, {
				status: answer.status,
				apiCode: typeof apiCode === 'string' ? apiCode : undefined,
				info,
			});
			if (answer.status >= 200 && answer.status < 300) {
				if (!isUnreadableBody(answer.body, answer.status, method)) {
					return answer.body === undefined || answer.body === null || answer.body === ''
						? {}
						: answer.body;
				}
				outcome = { kind: 'badBody', info };
			} else {
				outcome = {
					kind: 'status',
					status: answer.status,
					apiCode: typeof apiCode === 'string' ? apiCode : undefined,
					info,
				};
			}
		} else {
			settle(slot);
			outcome = { kind: 'network', code: networkCode };
		}

		const decision = decideRetry(outcome, method, retry, maxWaitSeconds, Math.random);
		if (decision.action === 'retry') {
			retryFirst = true;
			// A 429 that says when the window resets is waited out by the budget (the next slot).
			const pacedWait =
				outcome.kind === 'status' &&
				outcome.status === 429 &&
				(outcome.info.retryAfterSeconds !== undefined || outcome.info.resetSeconds !== undefined);
			if (!pacedWait) await sleep(Math.round(decision.waitSeconds * 1000), cancelSignal);
			continue;
		}
		errorContext.secrets = await currentSecrets(context, prepared);
		if (answer === undefined) {
			throw networkError(node, networkCode, prepared.host, errorContext, retry + 1, failureText);
		}
		if (decision.reason === 'dailyQuota') {
			throw dailyQuotaError(node, answer.body, decision.waitSeconds, now, errorContext);
		}
		if (decision.reason === 'waitCap') {
			throw waitCapError(
				node,
				answer.status,
				answer.body,
				decision.waitSeconds ?? 0,
				maxWaitSeconds,
				errorContext,
			);
		}
		if (outcome.kind === 'badBody') throw badBodyError(node, answer.status, errorContext);
		let extra: string | undefined;
		if (decision.reason === 'exhausted') {
			extra = `Gave up after ${retry + 1} attempts.`;
		} else if (answer.status >= 500) {
			extra = mayHaveBeenApplied(method);
		}
		throw httpStatusError(node, answer.status, answer.body, errorContext, extra);
	}
}

/**
 * Pages of a list endpoint, following `next_cursor`. `pageSize` (default and maximum 100) is the
 * `limit` query parameter; `max` stops after that many items. Stops on a null, missing or empty
 * cursor; fails on a cursor it has already followed. The credential is resolved once per list.
 */
export async function* erpPaginate(
	this: ErpContext,
	path: string,
	qs: IDataObject,
	options: { pageSize?: number; max?: number; itemIndex?: number },
	settings: ErpRequestSettings = {},
): AsyncGenerator<IDataObject[]> {
	const pageSize = Math.max(
		1,
		Math.min(MAX_PAGE_SIZE, Math.floor(options.pageSize ?? MAX_PAGE_SIZE)),
	);
	const { max, itemIndex } = options;
	const prepared = await prepare(this, itemIndex);
	const seen = new Set<string>();
	let cursor: string | undefined;
	let count = 0;
	while (max === undefined || count < max) {
		const limit = max === undefined ? pageSize : Math.min(pageSize, max - count);
		const page = (await send(
			this,
			prepared,
			{
				method: 'GET',
				path,
				qs: { ...qs, limit, ...(cursor !== undefined ? { cursor } : {}) },
				itemIndex,
			},
			settings,
		)) as { data?: unknown; pagination?: { next_cursor?: unknown } };
		if (!page || !Array.isArray(page.data)) throw listShapeError(prepared.node, path, itemIndex);
		let items = page.data as IDataObject[];
		if (max !== undefined && items.length > max - count) items = items.slice(0, max - count);
		count += items.length;
		if (items.length > 0) yield items;

		const next = page.pagination?.next_cursor;
		if (typeof next !== 'string' || next === '') return;
		if (seen.has(next)) {
			throw new NodeOperationError(
				prepared.node,
				`The ERP API returned the same page cursor twice while listing ${path}; stopped to avoid an endless loop`,
				{
					description: `${count} items were read before the repeated cursor. This is a server-side problem; try again later.`,
					itemIndex,
				},
			);
		}
		seen.add(next);
		cursor = next;
	}
}

/** Every item (returnAll) or the first `limit` (default 50) of a list endpoint. */
export async function erpGetMany(
	this: ErpContext,
	path: string,
	qs: IDataObject,
	options: { returnAll: boolean; limit?: number; itemIndex?: number },
	settings?: ErpRequestSettings,
): Promise<IDataObject[]> {
	const max = options.returnAll ? undefined : Math.max(0, Math.floor(options.limit ?? 50));
	const items: IDataObject[] = [];
	if (max === 0) return items;
	for await (const page of erpPaginate.call(
		this,
		path,
		qs,
		{ max, itemIndex: options.itemIndex },
		settings,
	)) {
		for (const item of page) items.push(item);
	}
	return items;
}
