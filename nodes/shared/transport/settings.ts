// What a request is: the transport's public types and defaults, the Request Options parameter and
// its reader (checked before any request), and the scope each endpoint and event needs.
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodeProperties,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { invalid as invalidValue, labelOf } from '../validation';

/** Max Rate-Limit Wait's default and highest value (a longer wait is a job for a later run). */
export const DEFAULT_MAX_WAIT_SECONDS = 60;
const MAX_WAIT_CAP_SECONDS = 3600;
export const DEFAULT_TIMEOUT_SECONDS = 30; // one attempt's

export type ErpContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| ITriggerFunctions
	| IWebhookFunctions;

export interface ErpRequest {
	method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
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
	/** May be resent after a lost answer (5xx, reset, timeout, unreadable body). Default: GET, DELETE. */
	resendable?: boolean;
}

export interface ErpRequestSettings {
	/** Longest the request may wait for the rate limit, in all, before failing. Default 60. */
	maxWaitSeconds?: number;
	/** 'auto' (default): derived key; 'off': none; any other string: that key. */
	idempotencyKey?: 'auto' | 'off' | string;
	/** Timeout of one attempt, in seconds. Default 30. */
	timeoutSeconds?: number;
}

export type ErpCredentialType = 'erpApi' | 'erpOAuth2Api';

export type HttpMethod = ErpRequest['method'];

// Methods resent after a lost answer: GET, and DELETE (deleting twice is harmless). Not PUT: only
// the API Request operation sends it, to endpoints the node does not know.
export function isIdempotentMethod(method: HttpMethod): boolean {
	return method === 'GET' || method === 'DELETE';
}

export const requestOptionsDescription: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add Request Option',
	default: {},
	options: [
		{
			displayName: 'Idempotency Key',
			name: 'idempotency',
			type: 'options',
			options: [
				{
					name: 'Automatic',
					value: 'auto',
					description:
						'Derived from the workflow, the node and the request data, so a retry or a re-run of a failed execution cannot create a duplicate',
				},
				{
					name: 'Custom',
					value: 'custom',
					description: 'Your own key, for example the e-commerce order number',
				},
				{
					name: 'Off',
					value: 'off',
					description: 'Send no key: every request creates a new record',
				},
			],
			default: 'auto',
			description: 'The Idempotency-Key sent with create requests (POST)',
			hint: "With a key, the ERP treats two identical create requests within 24 hours as one and returns the first result. Two real, identical payments must differ in some field (a settlement's reference, for example) or use Off.",
		},
		{
			displayName: 'Custom Idempotency Key',
			name: 'customIdempotencyKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.order_number }}',
			description:
				'The key to send, usually from an expression: a value that identifies this one business operation, such as an order number. Up to 255 printable ASCII characters.',
			displayOptions: { show: { idempotency: ['custom'] } },
		},
		{
			displayName: 'Max Rate-Limit Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_WAIT_CAP_SECONDS },
			default: DEFAULT_MAX_WAIT_SECONDS,
			description:
				"Longest one request may wait for the ERP's rate limit, in all (its turn and every wait the ERP asks for). Past it, the node fails with a clear error instead of waiting. An exhausted daily quota always fails at once.",
		},
	],
};

function nodeParameter(
	context: ErpContext,
	name: string,
	index: number | undefined,
	fallback: unknown,
) {
	return typeof (context as IExecuteFunctions).getInputData === 'function'
		? (context as IExecuteFunctions).getNodeParameter(name, index ?? 0, fallback)
		: (context as IHookFunctions).getNodeParameter(name, fallback);
}

export function authenticationOf(context: ErpContext, itemIndex?: number): 'apiKey' | 'oAuth2' {
	return nodeParameter(context, 'authentication', itemIndex, 'apiKey') === 'oAuth2'
		? 'oAuth2'
		: 'apiKey';
}

/** Longest custom Idempotency-Key accepted (the common limit of APIs that take one). */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Reads `requestOptions`: an invalid value fails naming the option, before any request. */
export function getRequestSettings(context: ErpContext, itemIndex?: number): ErpRequestSettings {
	const options = (nodeParameter(context, 'requestOptions', itemIndex, {}) ?? {}) as IDataObject;
	const invalid = (option: string, expected: string) => {
		const label = labelOf([requestOptionsDescription], 'requestOptions', option);
		return invalidValue({ node: context.getNode(), label, itemIndex }, expected);
	};
	const given = (value: unknown) => value !== undefined && value !== null && value !== '';
	const { maxWaitSeconds: wait, idempotency, customIdempotencyKey: key } = options;
	const settings: ErpRequestSettings = {};
	if (given(wait)) {
		const seconds = typeof wait === 'string' ? Number(wait) : wait;
		if (typeof seconds !== 'number' || !(seconds >= 0 && seconds <= MAX_WAIT_CAP_SECONDS)) {
			throw invalid(
				'maxWaitSeconds',
				`expected a number of seconds from 0 to ${MAX_WAIT_CAP_SECONDS}`,
			);
		}
		settings.maxWaitSeconds = seconds;
	}
	let custom: string | undefined;
	if (given(key)) {
		if (typeof key !== 'string' && typeof key !== 'number') {
			throw invalid('customIdempotencyKey', 'expected text, such as an order number');
		}
		custom = String(key).trim();
		if (custom.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7E]*$/.test(custom)) {
			throw invalid(
				'customIdempotencyKey',
				`expected at most ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (letters, digits, - _ . and the like)`,
			);
		}
	}
	if (!given(idempotency) || idempotency === 'auto' || idempotency === 'off') {
		settings.idempotencyKey = idempotency === 'off' ? 'off' : 'auto';
	} else if (idempotency !== 'custom') {
		throw invalid('idempotency', 'expected Automatic (auto), Custom (custom) or Off (off)');
	} else if (!custom) {
		throw invalid(
			'customIdempotencyKey',
			'a key is required: enter one (for example an order number) or set Idempotency Key to Automatic',
		);
	} else {
		settings.idempotencyKey = custom;
	}
	return settings;
}

/** Scope each event of the trigger needs (docs/api-contract.md). The one list of the events. */
export const EVENT_SCOPES = {
	'vente.creee': 'factures:read',
	'facture.payee': 'factures:read',
	'stock.bas': 'articles:read',
	'tva.declaree': 'compta:read',
	'paie.validee': 'paie:read',
} as const satisfies Record<string, string>;

export type ErpEvent = keyof typeof EVENT_SCOPES;

/** Scope each endpoint needs (docs/api-contract.md); for /webhooks, see `requiredScopes`. */
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
	// Beyond the spec's table (docs/api-contract.md), reached with the API Request operation.
	{ method: 'DELETE', path: /^\/articles\/[^/]+$/, scope: 'articles:write' },
	{ method: 'GET', path: /^\/paie\/bulletins$/, scope: 'paie:read' },
	{ method: 'GET', path: /^\/audit\/journal$/, scope: 'audit:read' },
];

/** The scopes a request needs, per docs/api-contract.md; empty when unknown. */
export function requiredScopes(method: HttpMethod, path: string, body?: IDataObject): string[] {
	const cleanPath = path.split('?')[0].replace(/\/+$/, '');
	if (/^\/webhooks(\/|$)/.test(cleanPath)) {
		const events = Array.isArray(body?.events) ? (body.events as unknown[]).map(String) : [];
		const all = Object.keys(EVENT_SCOPES);
		const selected = events.includes('*') ? all : events.filter((event) => all.includes(event));
		return [...new Set(selected.map((event) => EVENT_SCOPES[event as ErpEvent]))];
	}
	const match = ENDPOINT_SCOPES.find((e) => e.method === method && e.path.test(cleanPath));
	return match ? [match.scope] : [];
}
