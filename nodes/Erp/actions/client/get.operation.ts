import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { clientLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { getLocatorId } from '../locators';

export const description = updateDisplayOptions(
	{ show: { resource: ['client'], operation: ['get'] } },
	[clientLocator] as INodeProperties[],
);

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const id = getLocatorId(this, itemIndex, clientLocator, 'client');
	return async () =>
		await erp.request({
			method: 'GET',
			path: `/clients/${id}`,
			resource: `Client ${id}`,
		});
}
