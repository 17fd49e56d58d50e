import { resourceDescription } from '../common.descriptions';
import * as create from './create.operation';
import * as findOrCreate from './findOrCreate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export { create, findOrCreate, get, getAll, update };

export const description = resourceDescription('client', 'get', [
	[
		create,
		{
			name: 'Create',
			value: 'create',
			description: 'Create a client (customer) with a name and a unique email',
			action: 'Create a client',
		},
	],
	[
		findOrCreate,
		{
			name: 'Find or Create',
			value: 'findOrCreate',
			description:
				"Find a client by email, or create it when none exists; the output's _action is found or created. Use before issuing an invoice for an order.",
			action: 'Find or create a client',
		},
	],
	[
		get,
		{
			name: 'Get',
			value: 'get',
			description: 'Get one client with name, email, phone and address',
			action: 'Get a client',
		},
	],
	[
		getAll,
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List clients, optionally filtered by text in the name or email',
			action: 'Get many clients by name or email search',
		},
	],
	[
		update,
		{
			name: 'Update',
			value: 'update',
			description: 'Change the name, email, phone or address of a client',
			action: 'Update a client',
		},
	],
]);
