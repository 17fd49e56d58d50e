import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, returnAllAndLimit } from '../common.descriptions';
import type { Prepared } from '../utils';
import { prepareGetMany, readFilters } from '../utils';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Search Text',
				name: 'q',
				type: 'string',
				default: '',
				description: 'Text found in the name or the email (API filter q)',
			},
		],
	},
	listOptions,
];

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
