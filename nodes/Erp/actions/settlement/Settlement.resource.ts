import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['settlement'] } },
		options: [
			{
				name: 'Record',
				value: 'create',
				description:
					'Record a payment received for an invoice; the invoice becomes paid when nothing is left to pay',
				action: 'Record a settlement',
			},
		],
		default: 'create',
	},
	...create.description,
];
