import { resource } from '../common.descriptions';
import * as getAll from './getAll.operation';

export const { description, operations } = resource('stockMovement', 'getAll', {
	getAll: {
		name: 'Get Many',
		description:
			'List stock movements (ins, outs from invoices, adjustments), filtered by article and date range',
		action: 'Get many stock movements by article or date range',
		operation: getAll,
	},
});
