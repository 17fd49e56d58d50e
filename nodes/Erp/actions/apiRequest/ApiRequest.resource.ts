import type { INodeProperties } from 'n8n-workflow';

import * as send from './send.operation';

export { send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['apiRequest'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				description:
					"Expert fallback: call any endpoint of the ERP API (e.g. GET /paie/bulletins for payroll slips, GET /audit/journal) with the node's pacing, retries, idempotency and errors. Use another resource when one fits.",
				action: 'Send an API request',
			},
		],
		default: 'send',
	},
	...send.description,
];
