// Options loaded from the API.
import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { erpPaginate } from '../../shared/transport';

/** Articles read, at most, to collect the categories (10 pages of 100). */
const CATEGORY_SCAN_LIMIT = 1000;

/**
 * The API has no category list: categories are collected from the articles (`categorie` of each),
 * reading at most CATEGORY_SCAN_LIMIT articles. A category only used by later articles can still be
 * given by ID through an expression.
 */
export async function getCategories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const categories = new Map<string, string>();
	const options = { pageSize: 100, max: CATEGORY_SCAN_LIMIT };
	for await (const page of erpPaginate.call(this, '/articles', {}, options)) {
		for (const article of page) {
			const categorie = article.categorie as IDataObject | undefined;
			if (categorie && typeof categorie.id === 'string') {
				categories.set(categorie.id, String(categorie.nom ?? categorie.id));
			}
		}
	}
	return [...categories]
		.map(([value, name]) => ({ name, value }))
		.sort((a, b) => a.name.localeCompare(b.name));
}
