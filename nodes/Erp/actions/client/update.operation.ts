import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { clientLocator } from '../common.descriptions';
import type { Prepared } from '../utils';
import { checkFields, getLocatorId, request, requireSomeFields } from '../utils';
import { clientFields, clientFieldSpecs } from './fields';

const properties: INodeProperties[] = [
	clientLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [clientFields.adresse, clientFields.email, clientFields.nom, clientFields.telephone],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['client'], operation: ['update'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const id = getLocatorId(this, itemIndex, 'clientId', 'Client', 'client');
	const body = checkFields(
		this,
		itemIndex,
		clientFieldSpecs,
		requireSomeFields(this, itemIndex, 'updateFields', 'Update Fields'),
	);
	return async () =>
		await request.call(this, itemIndex, {
			method: 'PATCH',
			path: `/clients/${id}`,
			body,
			resource: `Client ${id}`,
		});
}
