// An event's identity, what makes a delivery and an event caught up from a list the same event
// (docs/api-contract.md): its type and a key in its data (the invoice's or stock movement's id),
// found in a delivery at the credential's Event Identity Paths; a list-derived item's `id`.
import type { IDataObject } from 'n8n-workflow';

import type { EventConventions } from '../shared/conventions';
import { valueAt } from '../shared/conventions';
import type { Watch } from '../shared/watches';
import { WATCHES } from '../shared/watches';
import { idText, isSelected } from './events';

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
export const caughtUpEvents = (selection: string[]): string[] =>
	Object.keys(CATCH_UP_WATCHES)
		.filter((type) => isSelected(selection, type))
		.sort();

/** `type:key`, or undefined when the key is not a non-empty text or a whole number. */
function identityOf(type: string, key: unknown): string | undefined {
	const text = idText(key);
	return text === undefined ? undefined : `${type}:${text}`;
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
export const itemIdentity = (item: IDataObject): string | undefined =>
	identityOf(String(item.type), item.id);
