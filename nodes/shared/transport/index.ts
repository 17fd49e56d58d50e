// The one door to the ERP API: every HTTP call in nodes/ goes through these, imported from here.
// CONTRIBUTING.md (*Transport*) lists signatures and files; each file's header says how it behaves.
export type { ErpContext, ErpEvent, ErpRequest } from './settings';
export { EVENT_SCOPES, getRequestSettings, requestOptionsDescription } from './settings';
export { getGuardedCredentials, getListConventions } from './credentials';
export type { CredentialRead } from './credentials';
export { erpApiRequest, erpApiResponse } from './request';
export { canonicalJson, deriveIdempotencyKey } from './attempt';
export { erpGetMany, erpListAnswer, erpListPage, erpPaginate } from './pagination';
export { MAX_PAGE_SIZE } from './pageSize';
export { ERROR_MARK, erpErrorToJson } from './apiError';
