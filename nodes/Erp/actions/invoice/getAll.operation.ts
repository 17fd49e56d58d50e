import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { clientLocator, INVOICE_STATUSES, listProperties } from '../common.descriptions';
import type { Prepared } from '../utils';
import { prepareGetMany, readFilters } from '../utils';

const properties = listProperties([
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

export const description = updateDisplayOptions(
	{ show: { resource: ['invoice'], operation: ['getAll'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const filters = readFilters(this, itemIndex, {
		clientId: { label: 'Client', api: 'client_id', kind: 'locator', idKind: 'client' },
		statut: { label: 'Status', kind: 'enum', values: INVOICE_STATUSES },
	});
	return prepareGetMany(this, itemIndex, '/factures', filters);
}
