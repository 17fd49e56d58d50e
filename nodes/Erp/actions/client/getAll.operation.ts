import type { IExecuteFunctions } from 'n8n-workflow';

import { listProperties } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { fieldSpecs } from '../fields';
import { prepareGetMany, readFilters } from '../lists';

export const properties = listProperties([
	{
		displayName: 'Search Text',
		name: 'q',
		type: 'string',
		default: '',
		description: 'Text found in the name or the email (API filter q)',
	},
]);

const filterSpecs = fieldSpecs(properties, { q: { kind: 'text', max: 'filter' } });

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const filters = readFilters(this, itemIndex, filterSpecs);
	return prepareGetMany(this, itemIndex, erp, '/clients', filters);
}
