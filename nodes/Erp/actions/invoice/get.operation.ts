import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { invoiceLocator } from '../common.descriptions';
import type { Prepared } from '../utils';
import { getLocatorId, request } from '../utils';

export const description = updateDisplayOptions(
	{ show: { resource: ['invoice'], operation: ['get'] } },
	[invoiceLocator] as INodeProperties[],
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const id = getLocatorId(this, itemIndex, 'invoiceId', 'Invoice', 'invoice');
	return async () =>
		await request.call(this, itemIndex, {
			method: 'GET',
			path: `/factures/${id}`,
			resource: `Invoice ${id}`,
		});
}
