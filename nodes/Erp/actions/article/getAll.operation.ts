import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listProperties } from '../common.descriptions';
import type { FieldSpec, Prepared } from '../utils';
import { prepareGetMany, readFilters } from '../utils';
import { articleFields } from './fields';

const properties = listProperties([
	articleFields.categorie_id,
	{
		...articleFields.reference,
		description: 'Only the article with exactly this reference (API filter reference)',
	},
	{
		displayName: 'Search Text',
		name: 'q',
		type: 'string',
		default: '',
		description: 'Text found in the designation or the reference (API filter q)',
	},
]);

export const description = updateDisplayOptions(
	{ show: { resource: ['article'], operation: ['getAll'] } },
	properties,
);

const filterSpecs: Record<string, FieldSpec> = {
	categorie_id: { label: 'Category Name or ID', kind: 'text', max: 'id' },
	reference: { label: 'Reference', kind: 'text', max: 'filter' },
	q: { label: 'Search Text', kind: 'text', max: 'filter' },
};

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	return prepareGetMany(this, itemIndex, '/articles', readFilters(this, itemIndex, filterSpecs));
}
