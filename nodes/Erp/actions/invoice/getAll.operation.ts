import type { IExecuteFunctions } from 'n8n-workflow';

import { clientLocator, INVOICE_STATUSES, listProperties } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { fieldSpecs } from '../fields';
import { prepareGetMany, readFilters } from '../lists';

export const properties = listProperties([
	{
		...clientLocator,
		required: false,
		description: 'Only the invoices of this client (API filter client_id)',
	},
	{
		displayName: 'Status',
		name: 'statut',
		type: 'options',
		default: 'emise',
		description: 'Only the invoices in this state (API filter statut)',
		options: [
			{ name: 'Issued (Emise)', value: 'emise' },
			{ name: 'Paid (Payee)', value: 'payee' },
			{ name: 'Partially Paid (Partiellement_payee)', value: 'partiellement_payee' },
		],
	},
]);

const filterSpecs = fieldSpecs(properties, {
	clientId: { api: 'client_id', kind: 'locator', idKind: 'client' },
	statut: { kind: 'enum', values: INVOICE_STATUSES },
});

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const filters = readFilters(this, itemIndex, filterSpecs);
	return prepareGetMany(this, itemIndex, erp, '/factures', filters);
}
