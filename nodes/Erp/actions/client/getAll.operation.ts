import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listProperties } from '../common.descriptions';
import type { Prepared } from '../utils';
import { prepareGetMany, readFilters } from '../utils';

const properties = listProperties([
	{
		displayName: 'Search Text',
		name: 'q',
		type: 'string',
		default: '',
		description: 'Text found in the name or the email (API filter q)',
	},
]);

export const description = updateDisplayOptions(
	{ show: { resource: ['client'], operation: ['getAll'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const filters = readFilters(this, itemIndex, {
		q: { label: 'Search Text', kind: 'text', max: 'filter' },
	});
	return prepareGetMany(this, itemIndex, '/clients', filters);
}
