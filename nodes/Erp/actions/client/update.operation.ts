import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { clientLocator, updateFields } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields, requireSomeFields } from '../fields';
import { getLocatorId } from '../locators';
import { clientFields, clientFieldSpecs } from './fields';

const fieldsToUpdate = updateFields([
	clientFields.adresse,
	clientFields.email,
	clientFields.nom,
	clientFields.telephone,
]);

export const properties: INodeProperties[] = [clientLocator, fieldsToUpdate];

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const id = getLocatorId(this, itemIndex, clientLocator, 'client');
	const body = checkFields(
		this,
		itemIndex,
		clientFieldSpecs,
		requireSomeFields(this, itemIndex, fieldsToUpdate),
	);
	return async () =>
		await erp.request({
			method: 'PATCH',
			path: `/clients/${id}`,
			body,
			resource: `Client ${id}`,
		});
}
