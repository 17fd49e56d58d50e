import type { INodeProperties } from 'n8n-workflow';

import { clientLocator } from '../common.descriptions';
import { listOperation } from '../lists';

/** The values of Status, in the API's order. */
const INVOICE_STATUSES = ['emise', 'partiellement_payee', 'payee'] as const;

const filters: INodeProperties[] = [
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
];

export const { properties, prepare } = listOperation('/factures', {
	filters,
	checks: {
		clientId: { api: 'client_id', kind: 'locator', idKind: 'client' },
		statut: { kind: 'enum', values: INVOICE_STATUSES },
	},
});
