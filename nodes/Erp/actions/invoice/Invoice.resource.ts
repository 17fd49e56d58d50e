import { resourceDescription } from '../common.descriptions';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { create, get, getAll };

export const description = resourceDescription('invoice', 'get', [
	[
		create,
		{
			name: 'Issue',
			value: 'create',
			description:
				'Issue an invoice for a client from article lines; takes the quantities out of stock and posts it to the ledger',
			action: 'Issue an invoice',
		},
	],
	[
		get,
		{
			name: 'Get',
			value: 'get',
			description:
				'Get one invoice with its lines, totals, status, amount paid and amount left to pay',
			action: 'Get an invoice',
		},
	],
	[
		getAll,
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List invoices, filtered by client or status (issued, partially paid, paid)',
			action: 'Get many invoices by client or status',
		},
	],
]);
