// The one door to the ERP API. Every HTTP call from nodes/ goes through these functions.
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
//   getGuardedCredentials(context, itemIndex?, through?): Promise<credential data>   guards applied, nothing sent
//     (through: CredentialRead, a caller's way of reading it, e.g. shared by the trigger's deliveries)
//   getListConventions(context, itemIndex?): Promise<ListConventions>   the credential's list names, nothing sent
//   erpErrorToJson(error): { message, code, httpCode, details?, description? }   for continueOnFail items
//   requiredScopes(method, path, body?): string[];  EVENT_SCOPES: event -> scope; ErpEvent
//   types ErpContext, ErpCredentialType, ErpRequest (method GET/POST/PATCH/PUT/DELETE, resendable?),
//   ErpRequestSettings (maxWaitSeconds, idempotencyKey, timeoutSeconds: per attempt, not a UI option)
//   Shared parameter descriptions live in ../descriptions.ts (authenticationDescription,
//   erpCredentialsDescription, requestOptionsDescription); guards in ../guards.ts.
//
// Behaviour: guards before anything leaves; JSON in/out; NodeApiError with user-terms messages;
// 429 honoured (Retry-After, else RateLimit-Reset, else the end of the window the pack learned: a
// bare 429 is a rate limit, never a retry count) and paced ahead: every request takes a slot of its
// key's budget (RateLimit-Remaining/Reset, requests in flight counted; with no headers, what the
// server accepted and refused, or the credential's Rate Limit (Requests per Minute)) before it is
// sent, waiting in order for the reset when none is left (pacing.ts); GET/DELETE also
// retried on 5xx, resets, timeouts and unreadable bodies (a request can say otherwise with
// `resendable`); POST/PATCH/PUT only on 429 and connection refused; every POST carries an Idempotency-Key.
// Lists: parameter names and answer paths are the credential's Custom API Conventions (../conventions.ts).
// A first page refused because of its size (400/422 about `limit`) is read again once with the
// maximum the server states, else without `limit`, and that is remembered per credential (pageSize.ts).
// Errors: NodeOperationError when a guard refuses (nothing sent) or a list repeats its cursor;
// NodeApiError for everything else, with the API's code kept (read it with erpErrorToJson, which
// also looks through a wrapper, so `throw new NodeApiError(this.getNode(), error as JsonObject)`
// in a node's catch keeps everything: it returns a NodeApiError unchanged). Error texts never
// carry request headers, and the credential's own secret values are scrubbed from what the API
// sends back. Waits use `sleep` from n8n-workflow and end when the execution is cancelled.
//
// Files, one job each: types.ts (public types), settings.ts (node parameters: authentication,
// requestOptions), credentials.ts (guarded credential, what a request needs from it), request.ts
// (the attempt loop), httpOptions.ts (what every attempt sends), attempt.ts (one attempt),
// rateLimited.ts (what happens on a 429), failure.ts (the error a request ends with), wait.ts
// (the one rate-limit wait), classify.ts (what a failed call was), pagination.ts (lists), pageSize.ts
// (page sizes a server refused, per credential), errors.ts (error mapping), connectionErrors.ts (no
// HTTP answer: network, TLS, OAuth2 connection), apiError.ts (the API's error body, secrets
// scrubbed), errorJson.ts (error items), scopes.ts (scopes per endpoint and event), rateLimit.ts
// (retry arithmetic, reading a 429's wait), dialects.ts (the rate-limit header dialects, each read
// into one budget), budget.ts (pacing arithmetic), sharing.ts (several processes on one key, the
// release over time), learned.ts (the window of a server that reports no budget),
// windowSearch.ts (the length of a bare 429's window), pacing.ts (the process's budgets, one per
// key), idempotency.ts (Idempotency-Key values).
export type { ErpContext, ErpCredentialType, ErpRequest, ErpRequestSettings } from './types';
export { getRequestSettings } from './settings';
export { getGuardedCredentials, getListConventions } from './credentials';
export type { CredentialRead } from './credentials';
export { erpApiRequest, erpApiResponse } from './request';
export { erpGetMany, erpListAnswer, erpListPage, erpPaginate } from './pagination';
export { MAX_PAGE_SIZE } from './pageSize';
export { erpErrorToJson } from './errorJson';
export { requiredScopes, EVENT_SCOPES } from './scopes';
export type { ErpEvent } from './scopes';
