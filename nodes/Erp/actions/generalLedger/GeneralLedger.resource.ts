import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['generalLedger'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List general ledger entries (debit and credit per account, in cents), filtered by date range and account',
				action: 'Get many ledger entries by date range or account',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
