import { resourceDescription } from '../common.descriptions';
import * as send from './send.operation';

export { send };

export const description = resourceDescription('apiRequest', 'send', [
	[
		send,
		{
			name: 'Send',
			value: 'send',
			description:
				"Expert fallback: call any endpoint of the ERP API (e.g. GET /paie/bulletins for payroll slips, GET /audit/journal) with the node's pacing, retries, idempotency and errors. Use another resource when one fits.",
			action: 'Send an API request',
		},
	],
]);
