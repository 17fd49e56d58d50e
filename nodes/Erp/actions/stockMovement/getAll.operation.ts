import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { articleLocator, dateRangeFilters, listProperties } from '../common.descriptions';
import type { Prepared } from '../utils';
import { prepareGetMany, readDatedFilters } from '../utils';

const properties = listProperties([
	{
		...articleLocator,
		required: false,
		description: 'Only the movements of this article (API filter article_id)',
	},
	...dateRangeFilters,
]);

export const description = updateDisplayOptions(
	{ show: { resource: ['stockMovement'], operation: ['getAll'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const filters = readDatedFilters(this, itemIndex, {
		articleId: { label: 'Article', api: 'article_id', kind: 'locator', idKind: 'article' },
	});
	return prepareGetMany(this, itemIndex, '/stock/mouvements', filters);
}
