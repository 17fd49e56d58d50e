import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { additionalFields } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { findClientByEmail, findOrCreate } from '../lookups';
import { readNewClient } from './create.operation';
import { clientFields, optionalClientFields } from './fields';

export const properties: INodeProperties[] = [
	{
		...clientFields.email,
		required: true,
		description:
			'Email to look for (case-insensitive); a client is created with it when none has it',
	},
	{
		...clientFields.nom,
		required: true,
		description: 'Name of the client, used only when the client is created (API field nom)',
	},
	additionalFields(optionalClientFields, 'Used only when the client is created'),
	{
		displayName:
			'The output is the client plus "_action": "found" or "created", which tells what happened',
		name: 'findOrCreateNotice',
		type: 'notice',
		default: '',
	},
];

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const body = readNewClient.call(this, itemIndex);
	return async () =>
		await findOrCreate(
			erp,
			async () => await findClientByEmail(erp, body.email as string),
			'/clients',
			body,
		);
}
