import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { additionalFields } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { findOrCreate } from '../records';
import * as create from './create.operation';
import { clientFields } from './fields';

const [nom, email] = create.properties;

export const properties: INodeProperties[] = [
	{
		...email,
		description:
			'Email to look for (case-insensitive); a client is created with it when none has it',
	},
	{
		...nom,
		description: 'Name of the client, used only when the client is created (API field nom)',
	},
	additionalFields(
		[clientFields.adresse, clientFields.telephone],
		'Used only when the client is created',
	),
	{
		displayName:
			'The output is the client plus "_action": "found" or "created", which tells what happened',
		name: 'findOrCreateNotice',
		type: 'notice',
		default: '',
	},
];

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const body = create.read(this, itemIndex);
	const email = String(body.email).toLowerCase();
	const find = async () =>
		await erp.find(
			'/clients',
			{ q: body.email },
			(c) => String(c.email ?? '').toLowerCase() === email,
		);
	return async () => await findOrCreate(erp, find, '/clients', body);
}
