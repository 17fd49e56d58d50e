// What the ERP Polling Trigger can watch, and the item each watch emits.
//
// Every item has the shape of an ERP Trigger item, `{ id, type, created_at, data }`, so the rest of
// a workflow does not change when one trigger replaces the other. Where the ERP has a webhook event
// for the same thing, `type` and `data` are that event's (`vente.creee`: the invoice; `stock.bas`:
// `{article_id, reference, designation, stock, seuil_alerte}`; `facture.payee`: the invoice after
// the settlement). `id` is the id of the record the item was derived from (the webhook's `evt_` ids
// are not in any list).
import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

export type WatchName =
	| 'stockMovement'
	| 'lowStock'
	| 'article'
	| 'client'
	| 'invoice'
	| 'invoicePaid';

/** A watch over one list: new items, in id order. */
export interface ListWatch {
	path: string;
	/** The item's `type`. */
	type: string;
	/** The record's field that says when it was created (for "start from a date"). */
	timeField: string;
}

/** The list each watch reads from a saved position. */
export const LISTS: Record<WatchName, ListWatch> = {
	stockMovement: { path: '/stock/mouvements', type: 'mouvement.cree', timeField: 'date' },
	lowStock: { path: '/stock/mouvements', type: 'stock.bas', timeField: 'date' },
	article: { path: '/articles', type: 'article.cree', timeField: 'created_at' },
	client: { path: '/clients', type: 'client.cree', timeField: 'created_at' },
	invoice: { path: '/factures', type: 'vente.creee', timeField: 'created_at' },
	invoicePaid: { path: '/factures', type: 'facture.payee', timeField: 'created_at' },
};

export const WATCH_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Invoice Paid',
		value: 'invoicePaid',
		description:
			'An invoice whose status became payee (facture.payee, as the ERP Trigger). Needs factures:read.',
	},
	{
		name: 'Low Stock',
		value: 'lowStock',
		description:
			"A stock movement that takes an article's stock from above its threshold to at or below it (stock.bas, as the ERP Trigger): once per crossing. Needs articles:read.",
	},
	{
		name: 'New Article',
		value: 'article',
		description: 'Each article created (article.cree). Needs articles:read.',
	},
	{
		name: 'New Client',
		value: 'client',
		description: 'Each client created (client.cree). Needs clients:read.',
	},
	{
		name: 'New Invoice',
		value: 'invoice',
		description: 'Each invoice issued (vente.creee, as the ERP Trigger). Needs factures:read.',
	},
	{
		name: 'New Stock Movement',
		value: 'stockMovement',
		description:
			'Each entry of the stock movement journal: invoices, stock adjustments (mouvement.cree). Needs articles:read.',
	},
];

export function isWatchName(value: unknown): value is WatchName {
	return typeof value === 'string' && Object.prototype.hasOwnProperty.call(LISTS, value);
}

/** The item for a record of a list watch. */
export function eventItem(type: string, record: IDataObject, createdAt: unknown): IDataObject {
	return {
		id: record.id,
		type,
		created_at: typeof createdAt === 'string' ? createdAt : null,
		data: record,
	};
}
