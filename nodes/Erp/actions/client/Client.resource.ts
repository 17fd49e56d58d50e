import { resource } from '../common.descriptions';
import * as create from './create.operation';
import * as findOrCreate from './findOrCreate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const { description, operations } = resource('client', 'get', {
	create: {
		name: 'Create',
		description: 'Create a client (customer) with a name and a unique email',
		action: 'Create a client',
		operation: create,
	},
	findOrCreate: {
		name: 'Find or Create',
		description:
			"Find a client by email, or create it when none exists; the output's _action is found or created. Use before issuing an invoice for an order.",
		action: 'Find or create a client',
		operation: findOrCreate,
	},
	get: {
		name: 'Get',
		description: 'Get one client with name, email, phone and address',
		action: 'Get a client',
		operation: get,
	},
	getAll: {
		name: 'Get Many',
		description: 'List clients, optionally filtered by text in the name or email',
		action: 'Get many clients by name or email search',
		operation: getAll,
	},
	update: {
		name: 'Update',
		description: 'Change the name, email, phone or address of a client',
		action: 'Update a client',
		operation: update,
	},
});
