import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { dateField, listOptions, returnAllAndLimit } from '../common.descriptions';
import type { Prepared } from '../utils';
import { prepareGetMany, readFilters, source } from '../utils';
import { checkDateRange } from '../validation';

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
				displayName: 'Account',
				name: 'compte',
				type: 'string',
				default: '',
				placeholder: 'e.g. 411',
				description:
					'Only the entries of this account number, e.g. 411 clients, 512 bank, 706 sales, 44571 VAT (API filter compte)',
			},
			dateField('End Date', 'date_fin', 'Last day included, YYYY-MM-DD (API filter date_fin)'),
			dateField(
				'Start Date',
				'date_debut',
				'First day included, YYYY-MM-DD (API filter date_debut)',
			),
		],
	},
	listOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['generalLedger'], operation: ['getAll'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const filters = readFilters(this, itemIndex, {
		compte: { label: 'Account', kind: 'text', max: 'filter' },
		date_debut: { label: 'Start Date', kind: 'date' },
		date_fin: { label: 'End Date', kind: 'date' },
	});
	checkDateRange(
		source(this, 'Start Date', itemIndex),
		filters.date_debut as string | undefined,
		filters.date_fin as string | undefined,
	);
	return prepareGetMany(this, itemIndex, '/comptabilite/grand-livre', filters);
}
