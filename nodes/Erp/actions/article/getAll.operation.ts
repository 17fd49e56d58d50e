import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listProperties } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { fieldSpecs } from '../fields';
import { prepareGetMany, readFilters } from '../lists';
import { articleFields, articleFieldSpecs } from './fields';

const searchText: INodeProperties = {
	displayName: 'Search Text',
	name: 'q',
	type: 'string',
	default: '',
	description: 'Text found in the designation or the reference (API filter q)',
};

export const properties = listProperties([
	articleFields.categorie_id,
	{
		...articleFields.reference,
		description: 'Only the article with exactly this reference (API filter reference)',
	},
	searchText,
]);

// The reference filter is checked as the article's reference is (at most 100 characters).
const filterSpecs = {
	categorie_id: articleFieldSpecs.categorie_id,
	reference: articleFieldSpecs.reference,
	...fieldSpecs([searchText], { q: { kind: 'text', max: 'filter' } }),
};

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const filters = readFilters(this, itemIndex, filterSpecs);
	return prepareGetMany(this, itemIndex, erp, '/articles', filters);
}
