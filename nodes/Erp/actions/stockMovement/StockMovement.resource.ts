import { resourceDescription } from '../common.descriptions';
import * as getAll from './getAll.operation';

export { getAll };

export const description = resourceDescription('stockMovement', 'getAll', [
	[
		getAll,
		{
			name: 'Get Many',
			value: 'getAll',
			description:
				'List stock movements (ins, outs from invoices, adjustments), filtered by article and date range',
			action: 'Get many stock movements by article or date range',
		},
	],
]);
