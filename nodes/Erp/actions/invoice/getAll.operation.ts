import { clientLocator } from '../common.descriptions';
import { listOperation } from '../lists';

export const { properties, prepare } = listOperation('/factures', {
	filters: [
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
	],
	checks: {
		clientId: { api: 'client_id', kind: 'locator', idKind: 'client' },
		// Status's values in the API's order (the options are in the editor's).
		statut: { kind: 'enum', values: ['emise', 'partiellement_payee', 'payee'] },
	},
});
