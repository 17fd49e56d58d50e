// Low stock, derived from the stock movement journal.
//
// A crossing is a movement that takes an article's stock from above the threshold to at or below
// it: the stock before it (stock_apres minus the movement's signed change) is above, stock_apres is
// at or below. That is exactly when the ERP emits `stock.bas`, so each crossing fires once, and the
// next one needs a movement that first brought the stock back above the threshold (re-armed only
// after a recovery). Nothing but the journal's position is kept: reading a stretch of the journal
// again (after a restart lost a quiet poll's position) finds the same crossings, never new ones.
//
// Cost of one poll: one request per 100 new movements (at least one), plus, with the article's own
// threshold (seuil_alerte), one GET /articles/:id per distinct article whose stock went down in
// them; with a fixed threshold, one per crossing (for the reference and designation). It does not
// depend on the number of articles.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { readOne } from './journal';

/** The threshold: the article's own `seuil_alerte`, or one number for every article. */
export type Threshold = { kind: 'seuil_alerte' } | { kind: 'fixed'; value: number };

/** A movement's signed change of stock: entree adds, sortie takes out, ajustement is signed. */
export function signedChange(movement: IDataObject): number | undefined {
	const quantite = movement.quantite;
	if (typeof quantite !== 'number' || !Number.isFinite(quantite)) return undefined;
	if (movement.type === 'sortie') return -Math.abs(quantite);
	if (movement.type === 'entree') return Math.abs(quantite);
	if (movement.type === 'ajustement') return quantite;
	return undefined;
}

/** Whether the movement takes the stock from above `threshold` to at or below it. */
export function crosses(movement: IDataObject, threshold: number): boolean {
	const after = movement.stock_apres;
	const change = signedChange(movement);
	if (typeof after !== 'number' || change === undefined) return false;
	const before = after - change;
	return before > threshold && after <= threshold;
}

/**
 * The `stock.bas` items for the crossings among `movements`, in journal order. `articles` keeps
 * the articles read (one read per article per poll).
 */
export async function lowStockItems(
	context: IPollFunctions,
	movements: IDataObject[],
	threshold: Threshold,
	articles = new Map<string, IDataObject | undefined>(),
): Promise<IDataObject[]> {
	const article = async (id: string) => {
		if (!articles.has(id)) articles.set(id, await readOne(context, '/articles', id, 'Article'));
		return articles.get(id);
	};
	const items: IDataObject[] = [];
	for (const movement of movements) {
		const id = movement.article_id;
		const change = signedChange(movement);
		if (typeof id !== 'string' || change === undefined || change >= 0) continue;
		let limit: number;
		let found: IDataObject | undefined;
		if (threshold.kind === 'fixed') {
			limit = threshold.value;
			if (!crosses(movement, limit)) continue;
			found = await article(id);
		} else {
			found = await article(id);
			if (typeof found?.seuil_alerte !== 'number') {
				// A deleted article: its threshold cannot be known.
				context.logger.warn(
					`ERP Polling Trigger: article ${id} of stock movement ${String(movement.id)} was not found; its low-stock threshold is unknown, the movement is skipped`,
				);
				continue;
			}
			limit = found.seuil_alerte;
			if (!crosses(movement, limit)) continue;
		}
		items.push({
			id: movement.id,
			type: 'stock.bas',
			created_at: typeof movement.date === 'string' ? movement.date : null,
			data: {
				article_id: id,
				reference: found?.reference ?? null,
				designation: found?.designation ?? null,
				stock: movement.stock_apres,
				seuil_alerte: limit,
			},
		});
	}
	return items;
}
