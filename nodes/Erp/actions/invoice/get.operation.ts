import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { invoiceLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { getLocatorId } from '../locators';

export const description = updateDisplayOptions(
	{ show: { resource: ['invoice'], operation: ['get'] } },
	[invoiceLocator] as INodeProperties[],
);

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const id = getLocatorId(this, itemIndex, invoiceLocator, 'invoice');
	return async () =>
		await erp.request({
			method: 'GET',
			path: `/factures/${id}`,
			resource: `Invoice ${id}`,
		});
}
