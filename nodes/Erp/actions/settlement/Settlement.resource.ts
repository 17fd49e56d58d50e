import { resource } from '../common.descriptions';
import * as create from './create.operation';

export const { description, operations } = resource('settlement', 'create', {
	create: {
		name: 'Record',
		description:
			'Record a payment received for an invoice; the invoice becomes paid when nothing is left to pay',
		action: 'Record a settlement',
		operation: create,
	},
});
