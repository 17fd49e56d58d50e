// Scopes: which OAuth2/API-key scope each endpoint and each trigger event needs
// (docs/api-contract.md, "Scopes"). Pure data and one lookup.
import type { IDataObject } from 'n8n-workflow';

import type { HttpMethod } from './rateLimit';

/** Scope each event of the trigger needs (docs/api-contract.md). The one list of the events. */
export const EVENT_SCOPES = {
	'vente.creee': 'factures:read',
	'facture.payee': 'factures:read',
	'stock.bas': 'articles:read',
	'tva.declaree': 'compta:read',
	'paie.validee': 'paie:read',
} as const satisfies Record<string, string>;

/** An event of the ERP's webhooks. */
export type ErpEvent = keyof typeof EVENT_SCOPES;

/** The events, in EVENT_SCOPES order. */
export const ERP_EVENT_NAMES = Object.keys(EVENT_SCOPES) as ErpEvent[];

export function isErpEvent(event: string): event is ErpEvent {
	return Object.prototype.hasOwnProperty.call(EVENT_SCOPES, event);
}

/** Scope each endpoint needs (docs/api-contract.md). `/webhooks` depends on the events: see `requiredScopes`. */
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
		const selected = events.includes('*') ? ERP_EVENT_NAMES : events.filter(isErpEvent);
		return [...new Set(selected.map((event) => EVENT_SCOPES[event]))];
	}
	const match = ENDPOINT_SCOPES.find(
		(entry) => entry.method === method && entry.path.test(cleanPath),
	);
	return match ? [match.scope] : [];
}
