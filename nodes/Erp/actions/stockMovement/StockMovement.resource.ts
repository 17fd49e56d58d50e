import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['stockMovement'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List stock movements (ins, outs from invoices, adjustments), filtered by article and date range',
				action: 'Get many stock movements by article or date range',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
