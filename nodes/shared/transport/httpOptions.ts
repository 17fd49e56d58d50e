// What every attempt of one request sends: the URL, headers (the Idempotency-Key of a POST,
// computed once so that every attempt carries the same), timeout, TLS minimum and error handling.
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { withTlsMinimum } from '../tls';
import type { ResolvedCredential } from './credentials';
import { deriveIdempotencyKey, resolveIdempotencyKey } from './idempotency';
import type { ErpContext, ErpRequest, ErpRequestSettings } from './types';

const DEFAULT_TIMEOUT_SECONDS = 30;

/** The request's path with its leading slash. */
export function requestPath(request: ErpRequest): string {
	return request.path.startsWith('/') ? request.path : `/${request.path}`;
}

/** The Idempotency-Key of a POST (undefined: none is sent), per `resolveIdempotencyKey`. */
function idempotencyKeyOf(
	context: ErpContext,
	nodeName: string,
	request: ErpRequest,
	settings: ErpRequestSettings,
): string | undefined {
	if (request.method !== 'POST') return undefined;
	return resolveIdempotencyKey(request.idempotencyKey, settings.idempotencyKey, () =>
		deriveIdempotencyKey({
			workflowId: String(context.getWorkflow().id ?? ''),
			nodeName,
			method: request.method,
			path: requestPath(request),
			body: request.body ?? {},
		}),
	);
}

/** n8n's request options for every attempt of `request` (each attempt copies the headers). */
export function httpOptions(
	context: ErpContext,
	resolved: ResolvedCredential,
	request: ErpRequest,
	settings: ErpRequestSettings,
): IHttpRequestOptions {
	const headers: IDataObject = { Accept: 'application/json' };
	const key = idempotencyKeyOf(context, resolved.node.name, request, settings);
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
