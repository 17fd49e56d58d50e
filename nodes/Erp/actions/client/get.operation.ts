import type { IExecuteFunctions } from 'n8n-workflow';

import { clientLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { getLocatorId } from '../locators';

export const properties = [clientLocator];

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const id = getLocatorId(this, itemIndex, clientLocator, 'client');
	return async () =>
		await erp.request({
			method: 'GET',
			path: `/clients/${id}`,
			resource: `Client ${id}`,
		});
}
