import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { clientLocator } from '../common.descriptions';
import type { Prepared } from '../utils';
import { getLocatorId, request } from '../utils';

export const description = updateDisplayOptions(
	{ show: { resource: ['client'], operation: ['get'] } },
	[clientLocator] as INodeProperties[],
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const id = getLocatorId(this, itemIndex, 'clientId', 'Client', 'client');
	return async () =>
		await request.call(this, itemIndex, {
			method: 'GET',
			path: `/clients/${id}`,
			resource: `Client ${id}`,
		});
}
