import { resource } from '../common.descriptions';
import * as getAll from './getAll.operation';

export const { description, operations } = resource('generalLedger', 'getAll', {
	getAll: {
		name: 'Get Many',
		description:
			'List general ledger entries (debit and credit per account, in cents), filtered by date range and account',
		action: 'Get many ledger entries by date range or account',
		operation: getAll,
	},
});
