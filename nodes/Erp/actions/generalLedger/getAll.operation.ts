import type { IExecuteFunctions } from 'n8n-workflow';

import { dateRangeFilters, listProperties } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { fieldSpecs } from '../fields';
import { prepareGetMany, readDatedFilters } from '../lists';

export const properties = listProperties([
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

const filterSpecs = fieldSpecs(properties, { compte: { kind: 'text', max: 'filter' } });

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const filters = readDatedFilters(this, itemIndex, filterSpecs);
	return prepareGetMany(this, itemIndex, erp, '/comptabilite/grand-livre', filters);
}
