// The one door to the ERP API: every HTTP call from nodes/ goes through these functions, and
// everything outside the transport imports it from here. CONTRIBUTING.md (*Transport*) gives the
// signatures and what each file holds.
//
// Behaviour: guards before anything leaves; JSON in and out; every request of a key spaced evenly
// at its rate, which a refusal slows down (pacer.ts); GET and DELETE also resent after a lost answer
// (5xx, reset, timeout, unreadable body), any method after a refused connection; every POST carries
// an Idempotency-Key. Lists follow the credential's Custom API Conventions (../conventions.ts); a
// first page refused for its size is read again once with a smaller one, remembered per credential
// (pageSize.ts). Errors are NodeApiError with the API's code kept (erpErrorToJson reads it, also
// through a wrapper), or NodeOperationError when a guard refuses; they never carry request headers
// and the credential's secrets are scrubbed. Waits use n8n's `sleep` and end on cancellation.
export type { ErpContext, ErpCredentialType, ErpEvent } from './settings';
export type { ErpRequest, ErpRequestSettings } from './settings';
export { EVENT_SCOPES, getRequestSettings, requestOptionsDescription } from './settings';
export { requiredScopes } from './settings';
export { getGuardedCredentials, getListConventions } from './credentials';
export type { CredentialRead } from './credentials';
export { erpApiRequest, erpApiResponse } from './request';
export { canonicalJson, deriveIdempotencyKey } from './attempt';
export { erpGetMany, erpListAnswer, erpListPage, erpPaginate } from './pagination';
export { MAX_PAGE_SIZE } from './pageSize';
export { ERROR_MARK, erpErrorToJson } from './apiError';
