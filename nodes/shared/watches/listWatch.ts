// The watches whose items are the new records of a list, one each, as they are (New Article, ...).
import type { IDataObject } from 'n8n-workflow';

import type { Watch } from './types';
import { eventItem } from './types';

function listWatch(
	watch: Pick<Watch, 'name' | 'label' | 'description' | 'path' | 'type' | 'timeField'>,
): Watch<undefined> {
	const itemOf = (record: IDataObject) =>
		eventItem(watch.type, record.id, record[watch.timeField], record);
	return {
		...watch,
		properties: [],
		stateKeys: [],
		readOptions: () => undefined,
		start: () => ({}),
		items: async (_context, records) => ({ items: records.map(itemOf), state: {} }),
		latest: async (_context, records) =>
			records.length ? itemOf(records[records.length - 1]) : undefined,
	};
}

export const article = listWatch({
	name: 'article',
	label: 'New Article',
	description: 'Each article created (article.cree). Needs articles:read.',
	path: '/articles',
	type: 'article.cree',
	timeField: 'created_at',
});

export const client = listWatch({
	name: 'client',
	label: 'New Client',
	description: 'Each client created (client.cree). Needs clients:read.',
	path: '/clients',
	type: 'client.cree',
	timeField: 'created_at',
});

export const invoice = listWatch({
	name: 'invoice',
	label: 'New Invoice',
	description: 'Each invoice issued (vente.creee, as the ERP Trigger). Needs factures:read.',
	path: '/factures',
	type: 'vente.creee',
	timeField: 'created_at',
});

export const stockMovement = listWatch({
	name: 'stockMovement',
	label: 'New Stock Movement',
	description:
		'Each entry of the stock movement journal: invoices, stock adjustments (mouvement.cree). Needs articles:read.',
	path: '/stock/mouvements',
	type: 'mouvement.cree',
	timeField: 'date',
});
