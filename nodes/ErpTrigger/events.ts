// The ERP's events (names, scopes, the Events parameter's options) and the node's selection of them.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { ErpEvent } from '../shared/transport';
import { EVENT_SCOPES } from '../shared/transport';

/** Each event of the ERP (EVENT_SCOPES' keys, which say the scope each needs), in English. */
const ERP_EVENTS: Record<ErpEvent, Record<'name' | 'action' | 'emittedBy' | 'topic', string>> = {
	'vente.creee': {
		name: 'Sale Created',
		action: 'On sale created',
		emittedBy: 'an invoice is issued',
		topic: 'sales',
	},
	'facture.payee': {
		name: 'Invoice Paid',
		action: 'On invoice paid',
		emittedBy: 'a settlement pays an invoice in full',
		topic: 'paid invoices',
	},
	'stock.bas': {
		name: 'Stock Low',
		action: 'On low stock',
		emittedBy: "an article's stock falls to or below its alert threshold",
		topic: 'low stock',
	},
	'paie.validee': {
		name: 'Payroll Validated',
		action: 'On payroll validated',
		emittedBy: 'a payroll run is validated',
		topic: 'payroll',
	},
	'tva.declaree': {
		name: 'VAT Return Filed',
		action: 'On VAT return filed',
		emittedBy: 'a VAT return is filed',
		topic: 'VAT',
	},
};

export const ALL_EVENTS = '*';
/** The scope the ERP grants only on request, and the events that need it. */
const RESTRICTED_SCOPE = 'paie:read';
const events = Object.keys(EVENT_SCOPES) as ErpEvent[];
const RESTRICTED_EVENTS = events.filter((event) => EVENT_SCOPES[event] === RESTRICTED_SCOPE);

const scopeName = (scope: string) =>
	scope === RESTRICTED_SCOPE ? `the restricted ${scope}` : scope;

/** The scopes the events need, in EVENT_SCOPES order, each with the events that need it. */
const scopes = [...new Set(events.map((event) => EVENT_SCOPES[event]))].map((scope) => ({
	scope,
	events: events.filter((event) => EVENT_SCOPES[event] === scope),
}));

export const EVENT_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'All Events',
		value: ALL_EVENTS,
		action: 'On any event',
		description: `Every event, including ones the ERP adds later. Needs the read scope of each: ${scopes
			.slice(0, -1)
			.map(({ scope }) => scopeName(scope))
			.join(', ')} and ${scopeName(scopes[scopes.length - 1].scope)}.`,
	},
	...events
		.map((value) => ({
			name: ERP_EVENTS[value].name,
			value,
			action: ERP_EVENTS[value].action,
			description: `When ${ERP_EVENTS[value].emittedBy} (${value}). Needs ${
				EVENT_SCOPES[value] === RESTRICTED_SCOPE
					? `the restricted ${RESTRICTED_SCOPE} scope (very sensitive, granted on request)`
					: `the ${EVENT_SCOPES[value]} scope`
			}.`,
		}))
		.sort((a, b) => a.name.localeCompare(b.name)),
];

/** "factures:read (sales, paid invoices), articles:read (low stock), ..., and the restricted paie:read (payroll)". */
const SCOPES_BY_TOPIC = scopes
	.map(
		({ scope, events: of }, k) =>
			`${k === scopes.length - 1 ? 'and ' : ''}${scopeName(scope)} (${of.map((event) => ERP_EVENTS[event].topic).join(', ')})`,
	)
	.join(', ');

/** The Events parameter, and the notice shown when a selected event needs the restricted scope. */
export const eventsProperties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: EVENT_OPTIONS,
		default: [],
		required: true,
		description: `The events that start the workflow. Each needs a read scope on the credential: ${SCOPES_BY_TOPIC}.`,
	},
	{
		displayName: `${RESTRICTED_EVENTS.map((event) => ERP_EVENTS[event].name).join(', ')} needs the restricted ${RESTRICTED_SCOPE} scope, which the ERP grants on request. Without it on this API key or OAuth2 connection, activation fails with a permission error naming the scope.`,
		name: 'payrollScopeNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { events: [...RESTRICTED_EVENTS, ALL_EVENTS] } },
	},
];

/** The selection as sent to the ERP: `['*']` for All Events, else the unique names, sorted. */
export function normalizeEvents(events: unknown): string[] {
	const list = (Array.isArray(events) ? events : [events]).filter(
		(event): event is string => typeof event === 'string' && event !== '',
	);
	if (list.includes(ALL_EVENTS)) return [ALL_EVENTS];
	return [...new Set(list)].sort();
}

/** Whether an event of this type starts the workflow for this (normalized) selection. */
export function isSelected(selection: string[], type: string): boolean {
	return selection.includes(ALL_EVENTS) || selection.includes(type);
}

/** An id as text: a non-empty text as it is, a whole number written out, else undefined. */
export function idText(value: unknown): string | undefined {
	if (typeof value === 'string' && value !== '') return value;
	if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
	return undefined;
}
