// An event's identity: what makes a webhook delivery and an event caught up from a list the same
// event, so that it runs once (docs/api-contract.md, *Catch-up and event identity*). It is the
// event's type and a key in its data: the invoice's id for `vente.creee` and `facture.payee` (an
// invoice is issued once and paid in full once), the id of the stock movement that crossed the
// threshold for `stock.bas` (`mouvement_id`). Where a delivery holds it is the credential's
// Custom API Conventions (Event Identity Paths); an event derived from a list (the watches in
// nodes/shared/watches) has that key as its `id`.
import type { IDataObject } from 'n8n-workflow';

import type { EventConventions } from '../shared/conventions';
import { valueAt } from '../shared/conventions';
import type { Watch } from '../shared/watches';
import { WATCHES } from '../shared/watches';
import { ALL_EVENTS } from './events';

/** The events a list can show, each with the watch that derives it from the ERP's lists. */
export const CATCH_UP_WATCHES: Readonly<Record<string, Watch>> = {
	'vente.creee': WATCHES.invoice,
	'facture.payee': WATCHES.invoicePaid,
	'stock.bas': WATCHES.lowStock,
};

/** Whether events of `type` can be caught up from a list (and so need an identity). */
export const isCaughtUp = (type: string): boolean =>
	Object.prototype.hasOwnProperty.call(CATCH_UP_WATCHES, type);

/** The caught-up events among a (normalized) selection, in a fixed order. */
export function caughtUpEvents(selection: string[]): string[] {
	return Object.keys(CATCH_UP_WATCHES)
		.filter((type) => selection.includes(ALL_EVENTS) || selection.includes(type))
		.sort();
}

/** `type:key`, or undefined when the key is not a non-empty text or a whole number. */
function identityOf(type: string, key: unknown): string | undefined {
	if (typeof key === 'string' && key !== '') return `${type}:${key}`;
	if (typeof key === 'number' && Number.isSafeInteger(key)) return `${type}:${key}`;
	return undefined;
}

/** A delivery's identity, read from its data where the conventions say; undefined when absent. */
export function deliveryIdentity(
	type: string,
	data: unknown,
	conventions: EventConventions,
): string | undefined {
	const path = conventions.identityPaths[type];
	return path === undefined ? undefined : identityOf(type, valueAt(data, path));
}

/** A list-derived item's identity: its type and its id (the invoice's or the movement's). */
export function itemIdentity(item: IDataObject): string | undefined {
	return identityOf(String(item.type), item.id);
}
