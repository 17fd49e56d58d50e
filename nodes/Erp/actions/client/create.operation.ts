import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { additionalFields } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields } from '../fields';
import { clientFields, clientFieldSpecs, optionalClientFields } from './fields';

export const properties: INodeProperties[] = [
	{ ...clientFields.nom, required: true },
	{ ...clientFields.email, required: true },
	additionalFields(optionalClientFields),
];

/** Reads and checks the body of a new client (also used by find-or-create). */
export function readNewClient(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const values: IDataObject = {
		nom: this.getNodeParameter('nom', itemIndex),
		email: this.getNodeParameter('email', itemIndex),
		...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
	};
	return checkFields(this, itemIndex, clientFieldSpecs, values);
}

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const body = readNewClient.call(this, itemIndex);
	return async () => await erp.request({ method: 'POST', path: '/clients', body });
}
