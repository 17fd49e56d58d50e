import { resource } from '../common.descriptions';
import * as send from './send.operation';

export const { description, operations } = resource('apiRequest', 'send', {
	send: {
		name: 'Send',
		description:
			"Expert fallback: call any endpoint of the ERP API (e.g. GET /paie/bulletins for payroll slips, GET /audit/journal) with the node's pacing, retries, idempotency and errors. Use another resource when one fits.",
		action: 'Send an API request',
		operation: send,
	},
});
