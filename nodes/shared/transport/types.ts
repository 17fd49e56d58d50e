// The transport's public types (re-exported by index.ts).
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

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
	/**
	 * Whether the request may be resent after its answer was lost (5xx, connection reset, timeout,
	 * unreadable body). Default: GET and DELETE. A 429 or a refused connection is always resent.
	 */
	resendable?: boolean;
}

export interface ErpRequestSettings {
	/** Longest a request may wait for the rate limit, in all, before failing instead. Default 60. */
	maxWaitSeconds?: number;
	/** 'auto' (default): derived key; 'off': none; any other string: that key. */
	idempotencyKey?: 'auto' | 'off' | string;
	/** Timeout of one attempt, in seconds. Default 30. */
	timeoutSeconds?: number;
}

export type ErpCredentialType = 'erpApi' | 'erpOAuth2Api';
