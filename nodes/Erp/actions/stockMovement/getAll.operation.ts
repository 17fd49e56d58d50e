import type { IExecuteFunctions } from 'n8n-workflow';

import { articleLocator, dateRangeFilters, listProperties } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { fieldSpecs } from '../fields';
import { prepareGetMany, readDatedFilters } from '../lists';

export const properties = listProperties([
	{
		...articleLocator,
		required: false,
		description: 'Only the movements of this article (API filter article_id)',
	},
	...dateRangeFilters,
]);

const filterSpecs = fieldSpecs(properties, {
	articleId: { api: 'article_id', kind: 'locator', idKind: 'article' },
});

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const filters = readDatedFilters(this, itemIndex, filterSpecs);
	return prepareGetMany(this, itemIndex, erp, '/stock/mouvements', filters);
}
