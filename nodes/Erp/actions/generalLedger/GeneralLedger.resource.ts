import { resourceDescription } from '../common.descriptions';
import * as getAll from './getAll.operation';

export { getAll };

export const description = resourceDescription('generalLedger', 'getAll', [
	[
		getAll,
		{
			name: 'Get Many',
			value: 'getAll',
			description:
				'List general ledger entries (debit and credit per account, in cents), filtered by date range and account',
			action: 'Get many ledger entries by date range or account',
		},
	],
]);
