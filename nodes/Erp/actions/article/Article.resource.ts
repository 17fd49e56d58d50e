import { resource } from '../common.descriptions';
import * as create from './create.operation';
import * as findOrCreate from './findOrCreate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const { description, operations } = resource('article', 'get', {
	create: {
		name: 'Create',
		description: 'Create an article (product) with its reference, label, price and VAT rate',
		action: 'Create an article',
		operation: create,
	},
	findOrCreate: {
		name: 'Find or Create',
		description:
			"Find an article by its exact reference, or create it when none exists (optionally update the found one); the output's _action is found, created or updated",
		action: 'Find or create an article',
		operation: findOrCreate,
	},
	get: {
		name: 'Get',
		description: 'Get one article with its price, VAT rate, stock and category',
		action: 'Get an article',
		operation: get,
	},
	getAll: {
		name: 'Get Many',
		description: 'List articles, filtered by reference, category or search text',
		action: 'Get many articles by search text or reference or category',
		operation: getAll,
	},
	update: {
		name: 'Update',
		description: 'Change fields of an article; changing the stock records an adjustment movement',
		action: 'Update an article',
		operation: update,
	},
});
