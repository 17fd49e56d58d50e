// The one door to the ERP API. Every HTTP call from nodes/ goes through these functions, and
// everything outside the transport imports it from here.
//
// Exports (CONTRIBUTING.md, *Transport*, gives their signatures):
//   erpApiRequest.call(this, request: ErpRequest, settings?: ErpRequestSettings): Promise<any>
//   erpApiResponse.call(this, request, settings?): Promise<{ statusCode, body }>   erpApiRequest with the status (204)
//   erpPaginate.call(this, path, qs, { pageSize?, max?, itemIndex?, cursor? }, settings?): AsyncGenerator<IDataObject[]>
//   erpGetMany.call(this, path, qs | () => Promise<qs>, { returnAll, limit?, pageSize?, itemIndex?, free?: { label, values } }, settings?): Promise<IDataObject[]>
//   erpListPage.call(this, path, qs, { pageSize?, cursor?, itemIndex? }, settings?): Promise<{ data, nextCursor? }>
//   erpListAnswer.call(this, body, itemIndex?): Promise<{ data, nextCursor? } | undefined>   a list answer, by the credential's conventions
//   MAX_PAGE_SIZE (100): the largest and default page size
//   getRequestSettings(context, itemIndex?): ErpRequestSettings   reads the `requestOptions` parameter
//   requestOptionsDescription, DEFAULT_MAX_WAIT_SECONDS (60), MAX_WAIT_CAP_SECONDS (3600)
//   getGuardedCredentials(context, itemIndex?, through?): Promise<credential data>   guards applied, nothing sent
//     (through: CredentialRead, a caller's way of reading it, e.g. shared by the trigger's deliveries)
//   getListConventions(context, itemIndex?): Promise<ListConventions>   the credential's list names, nothing sent
//   erpErrorToJson(error): { message, code, httpCode, details?, description? }   for continueOnFail items
//   ERROR_MARK ('erp'): where an error keeps its ERP facts (error.context[ERROR_MARK]), for errors made outside
//   requiredScopes(method, path, body?): string[];  EVENT_SCOPES: event -> scope; ErpEvent
//   deriveIdempotencyKey(input), canonicalJson(value)   the automatic Idempotency-Key
//   types ErpContext, ErpCredentialType, ErpRequest (method GET/POST/PATCH/PUT/DELETE, resendable?),
//   ErpRequestSettings (maxWaitSeconds, idempotencyKey, timeoutSeconds: per attempt, not a UI option)
//
// Behaviour: guards before anything leaves; JSON in/out; NodeApiError with user-terms messages;
// every request of a key spaced evenly at its rate, which a refusal slows down (pacer.ts);
// GET/DELETE also retried on 5xx, resets, timeouts and unreadable bodies (a request can say
// otherwise with `resendable`); POST/PATCH/PUT only on a refused connection; every POST carries an
// Idempotency-Key. Lists: parameter names and answer paths are the credential's Custom API
// Conventions (../conventions.ts); a first page refused because of its size is read again once
// with the maximum the server states, else without `limit`, remembered per credential (pageSize.ts).
// Errors: NodeOperationError when a guard refuses (nothing sent) or a list repeats its cursor;
// NodeApiError for everything else, with the API's code kept (read it with erpErrorToJson, which
// also looks through a wrapper). Error texts never carry request headers, and the credential's own
// secret values are scrubbed. Waits use `sleep` from n8n-workflow and end when the execution is
// cancelled.
//
// Files, one job each (a request crosses settings, credentials, request, attempt and pacer):
//   settings.ts     what a request is: public types, defaults, Request Options, scopes
//   credentials.ts  the guarded credential, and what a request needs from it
//   request.ts      the attempt loop: turns, a refusal (rate limit), what is resent, the final error
//   attempt.ts      one attempt: what it sends (Idempotency-Key), what came of it
//   pacer.ts        each key's rate: requests spaced evenly, a refusal slowing the key down
//   rateHeaders.ts  what an answer's headers say about the rate limit (every dialect, Retry-After)
//   classify.ts     what a failed call from n8n's helper was
//   errors.ts       the errors a request ends with
//   apiError.ts     the API's error body, secrets scrubbed; the facts every error keeps; error items
//   pagination.ts   lists; pageSize.ts  page sizes a server refused, per credential
export type {
	ErpContext,
	ErpCredentialType,
	ErpRequest,
	ErpRequestSettings,
	ErpEvent,
} from './settings';
export {
	DEFAULT_MAX_WAIT_SECONDS,
	EVENT_SCOPES,
	MAX_WAIT_CAP_SECONDS,
	getRequestSettings,
	requestOptionsDescription,
	requiredScopes,
} from './settings';
export { getGuardedCredentials, getListConventions } from './credentials';
export type { CredentialRead } from './credentials';
export { erpApiRequest, erpApiResponse } from './request';
export { canonicalJson, deriveIdempotencyKey } from './attempt';
export { erpGetMany, erpListAnswer, erpListPage, erpPaginate } from './pagination';
export { MAX_PAGE_SIZE } from './pageSize';
export { ERROR_MARK, erpErrorToJson } from './apiError';
