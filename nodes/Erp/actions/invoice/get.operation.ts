import type { IExecuteFunctions } from 'n8n-workflow';

import { invoiceLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { getLocatorId } from '../locators';

export const properties = [invoiceLocator];

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const id = getLocatorId(this, itemIndex, invoiceLocator, 'invoice');
	return async () =>
		await erp.request({
			method: 'GET',
			path: `/factures/${id}`,
			resource: `Invoice ${id}`,
		});
}
