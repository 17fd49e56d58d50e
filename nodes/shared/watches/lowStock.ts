// Low Stock (the ERP Trigger's stock.bas) from the stock movement journal: a crossing is a movement
// taking an article's stock from above the threshold to at or below it (when the ERP emits
// stock.bas). Only the journal's position is kept: a stretch read again gives the same crossings.
// One GET /articles/:id per article whose stock went down (own threshold) or per crossing (fixed).
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { ErpContext } from '../transport';
import { toEnum, toInteger } from '../validation';
import { readOne } from './journal';
import type { Watch } from './types';
import { eventItem } from './types';

const TYPE = 'stock.bas';

/** The threshold: the article's own `seuil_alerte`, or one number for every article. */
type Threshold = { kind: 'seuil_alerte' } | { kind: 'fixed'; value: number };

/** A movement's signed change of stock: entree adds, sortie takes out, ajustement is signed. */
function signedChange(movement: IDataObject): number | undefined {
	const quantite = movement.quantite;
	if (typeof quantite !== 'number' || !Number.isFinite(quantite)) return undefined;
	if (movement.type === 'sortie') return -Math.abs(quantite);
	if (movement.type === 'entree') return Math.abs(quantite);
	if (movement.type === 'ajustement') return quantite;
	return undefined;
}

export function crosses(movement: IDataObject, threshold: number): boolean {
	const after = movement.stock_apres;
	const change = signedChange(movement);
	if (typeof after !== 'number' || change === undefined) return false;
	return after - change > threshold && after <= threshold;
}

/** The items for the crossings among `movements`, in order; `articles`: those read, by id. */
async function lowStockItems(
	context: ErpContext,
	movements: IDataObject[],
	threshold: Threshold,
	articles = new Map<string, IDataObject | undefined>(),
) {
	const items: IDataObject[] = [];
	for (const movement of movements) {
		const id = movement.article_id;
		const change = signedChange(movement);
		if (typeof id !== 'string' || change === undefined || change >= 0) continue;
		// With a fixed threshold, the article is read only for a crossing's reference and designation.
		if (threshold.kind === 'fixed' && !crosses(movement, threshold.value)) continue;
		if (!articles.has(id)) articles.set(id, await readOne(context, '/articles', id, 'Article'));
		const found = articles.get(id);
		const limit = threshold.kind === 'fixed' ? threshold.value : found?.seuil_alerte;
		if (typeof limit !== 'number') {
			context.logger.warn(
				`ERP Polling Trigger: article ${id} of stock movement ${String(movement.id)} was not found; its low-stock threshold is unknown, the movement is skipped`,
			);
			continue;
		}
		if (!crosses(movement, limit)) continue;
		items.push(
			eventItem(TYPE, movement.id, movement.date, {
				article_id: id,
				mouvement_id: movement.id,
				reference: found?.reference ?? null,
				designation: found?.designation ?? null,
				stock: movement.stock_apres,
				seuil_alerte: limit,
			}),
		);
	}
	return items;
}

const properties: INodeProperties[] = [
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'options',
		options: [
			{
				name: "Article's Alert Threshold (Seuil_alerte)",
				value: 'seuil_alerte',
				description: `Each article's own seuil_alerte, as the ERP's ${TYPE} event`,
			},
			{
				name: 'Fixed Number',
				value: 'fixed',
				description: 'The same number for every article',
			},
		],
		default: 'seuil_alerte',
	},
	{
		displayName: 'Threshold Value',
		name: 'thresholdValue',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description:
			'Fires when a stock movement takes an article from above this number to at or below it',
		displayOptions: { show: { threshold: ['fixed'] } },
	},
	{
		displayName:
			"Low stock is read from the stock movement journal, not from the article list: once per crossing, and again only after the stock went back above the threshold. One poll costs one request per 100 new movements (at least one) plus, with the article's own threshold, one per article whose stock went down, whatever the number of articles (reading the article list would cost ⌈N / 100⌉ requests per poll for N articles).",
		name: 'lowStockNotice',
		type: 'notice',
		default: '',
	},
];

export const lowStock: Watch<Threshold> = {
	name: 'lowStock',
	label: 'Low Stock',
	description: `A stock movement that takes an article's stock from above its threshold to at or below it (${TYPE}, as the ERP Trigger): once per crossing. Needs articles:read.`,
	path: '/stock/mouvements',
	type: TYPE,
	timeField: 'date',
	properties,
	stateKeys: [],
	readOptions: ({ value, at }) => {
		const kind = toEnum(at('threshold'), value('threshold', 'seuil_alerte'), [
			'seuil_alerte',
			'fixed',
		] as const);
		if (kind === 'seuil_alerte') return { kind };
		return { kind, value: toInteger(at('thresholdValue'), value('thresholdValue', 0), { min: 0 }) };
	},
	start: () => ({}),
	items: async (context, movements, threshold) => ({
		items: await lowStockItems(context, movements, threshold),
		state: {},
	}),
	latest: async (context, movements, threshold) => {
		// The last crossing in the journal, reading backwards only as far as needed.
		const articles = new Map<string, IDataObject | undefined>();
		for (let i = movements.length - 1; i >= 0; i--) {
			const [item] = await lowStockItems(context, [movements[i]], threshold, articles);
			if (item) return item;
		}
		return undefined;
	},
};
