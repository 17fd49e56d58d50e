import type { INodePropertyOptions } from 'n8n-workflow';

import { EVENT_SCOPES } from '../shared/transport';

/** Every event of the contract, with its English label; the scope each needs is the transport's EVENT_SCOPES. */
export const ERP_EVENTS = [
	{
		value: 'vente.creee',
		name: 'Sale Created',
		action: 'On sale created',
		emittedBy: 'an invoice is issued',
	},
	{
		value: 'facture.payee',
		name: 'Invoice Paid',
		action: 'On invoice paid',
		emittedBy: 'a settlement pays an invoice in full',
	},
	{
		value: 'stock.bas',
		name: 'Stock Low',
		action: 'On low stock',
		emittedBy: "an article's stock falls to or below its alert threshold",
	},
	{
		value: 'paie.validee',
		name: 'Payroll Validated',
		action: 'On payroll validated',
		emittedBy: 'a payroll run is validated',
	},
	{
		value: 'tva.declaree',
		name: 'VAT Return Filed',
		action: 'On VAT return filed',
		emittedBy: 'a VAT return is filed',
	},
] as const;

export const ALL_EVENTS = '*';

const scopeText = (scope: string) =>
	scope === 'paie:read'
		? 'the restricted paie:read scope (very sensitive, granted on request)'
		: `the ${scope} scope`;

export const EVENT_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'All Events',
		value: ALL_EVENTS,
		action: 'On any event',
		description:
			'Every event, including ones the ERP adds later. Needs the read scope of each: factures:read, articles:read, compta:read and the restricted paie:read.',
	},
	...ERP_EVENTS.map((event) => ({
		name: event.name,
		value: event.value,
		action: event.action,
		description: `When ${event.emittedBy} (${event.value}). Needs ${scopeText(EVENT_SCOPES[event.value])}.`,
	})).sort((a, b) => a.name.localeCompare(b.name)),
];

/**
 * The selection as sent to and compared with the ERP: `['*']` when All Events is chosen,
 * otherwise the unique event names in a fixed order.
 */
export function normalizeEvents(events: unknown): string[] {
	const list = (Array.isArray(events) ? events : [events]).filter(
		(event): event is string => typeof event === 'string' && event !== '',
	);
	if (list.includes(ALL_EVENTS)) return [ALL_EVENTS];
	return [...new Set(list)].sort();
}

export function sameEvents(a: unknown, b: unknown): boolean {
	const left = normalizeEvents(a);
	const right = normalizeEvents(b);
	return left.length === right.length && left.every((event, i) => event === right[i]);
}

/** Whether an event of this type starts the workflow for this (normalized) selection. */
export function isSelected(selection: string[], type: string): boolean {
	return selection.includes(ALL_EVENTS) || selection.includes(type);
}
