import { resourceDescription } from '../common.descriptions';
import * as create from './create.operation';

export { create };

export const description = resourceDescription('settlement', 'create', [
	[
		create,
		{
			name: 'Record',
			value: 'create',
			description:
				'Record a payment received for an invoice; the invoice becomes paid when nothing is left to pay',
			action: 'Record a settlement',
		},
	],
]);
