import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { dateRangeFilters, listProperties } from '../common.descriptions';
import type { Prepared } from '../utils';
import { prepareGetMany, readDatedFilters } from '../utils';

const properties = listProperties([
	{
		displayName: 'Account',
		name: 'compte',
		type: 'string',
		default: '',
		placeholder: 'e.g. 411',
		description:
			'Only the entries of this account number, e.g. 411 clients, 512 bank, 706 sales, 44571 VAT (API filter compte)',
	},
	...dateRangeFilters,
]);

export const description = updateDisplayOptions(
	{ show: { resource: ['generalLedger'], operation: ['getAll'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const filters = readDatedFilters(this, itemIndex, {
		compte: { label: 'Account', kind: 'text', max: 'filter' },
	});
	return prepareGetMany(this, itemIndex, '/comptabilite/grand-livre', filters);
}
