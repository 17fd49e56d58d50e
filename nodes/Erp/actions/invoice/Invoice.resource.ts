import { resource } from '../common.descriptions';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const { description, operations } = resource('invoice', 'get', {
	create: {
		name: 'Issue',
		description:
			'Issue an invoice for a client from article lines; takes the quantities out of stock and posts it to the ledger',
		action: 'Issue an invoice',
		operation: create,
	},
	get: {
		name: 'Get',
		description:
			'Get one invoice with its lines, totals, status, amount paid and amount left to pay',
		action: 'Get an invoice',
		operation: get,
	},
	getAll: {
		name: 'Get Many',
		description: 'List invoices, filtered by client or status (issued, partially paid, paid)',
		action: 'Get many invoices by client or status',
		operation: getAll,
	},
});
