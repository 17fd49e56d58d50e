// Parameter descriptions shared by several operations: resource locators, list parameters and
// the enumerations of the API (docs/api-contract.md).
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { IdKind } from '../../shared/validation';
import { ID_PREFIXES, idPattern } from '../../shared/validation';
import type { Operation } from './erp';

/** A resource locator: a searchable list, an ID of the given kind and, for articles, a reference. */
function locator(
	kind: IdKind,
	options: {
		displayName: string;
		name: string;
		description: string;
		searchListMethod: string;
		byReference?: boolean;
	},
): INodeProperties {
	const label = options.displayName.toLowerCase();
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: options.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select ${kind === 'article' || kind === 'invoice' ? 'an' : 'a'} ${label}...`,
				typeOptions: { searchListMethod: options.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: `e.g. ${ID_PREFIXES[kind]}_00000001`,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: idPattern(kind),
							errorMessage: `Not a valid ${label} ID (${ID_PREFIXES[kind]}_…)`,
						},
					},
				],
			},
			...(options.byReference
				? [
						{
							displayName: 'By Reference',
							name: 'reference',
							type: 'string' as const,
							placeholder: 'e.g. REF-000001',
						},
					]
				: []),
		],
	};
}

export const articleLocator = locator('article', {
	displayName: 'Article',
	name: 'articleId',
	description: 'The article, picked from the list, by ID (art_…) or by its exact reference',
	searchListMethod: 'searchArticles',
	byReference: true,
});

export const clientLocator = locator('client', {
	displayName: 'Client',
	name: 'clientId',
	description: 'The client, picked from the list or by ID (cli_…)',
	searchListMethod: 'searchClients',
});

export const invoiceLocator = locator('invoice', {
	displayName: 'Invoice',
	name: 'invoiceId',
	description: 'The invoice, picked from the list or by ID (fac_…)',
	searchListMethod: 'searchInvoices',
});

/** Return All / Limit, for the `getAll` operation the caller scopes with displayOptions. */
export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** "Query Parameters": name and value pairs, read back with `readQueryParameters` (lists.ts). */
export function queryParametersProperty(description: string): INodeProperties {
	return {
		displayName: 'Query Parameters',
		name: 'queryParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Parameter',
		default: {},
		description,
		options: [
			{
				displayName: 'Parameter',
				name: 'parameter',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', required: true, default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	};
}

/** A date parameter: text `YYYY-MM-DD`, checked before the request. */
export function dateField(displayName: string, name: string, description: string): INodeProperties {
	return { displayName, name, type: 'string', default: '', placeholder: 'YYYY-MM-DD', description };
}

export const INVOICE_STATUSES = ['emise', 'partiellement_payee', 'payee'] as const;
export const SETTLEMENT_MODES = ['virement', 'carte', 'cheque', 'especes', 'prelevement'] as const;

/** An operation's entry in its resource's Operation list, with its module. */
type OperationEntry = Pick<INodePropertyOptions, 'name' | 'description' | 'action'> & {
	operation: { properties: INodeProperties[]; prepare: Operation };
};

/**
 * A resource: its Operation list (the entries keyed by value) followed by every operation's own
 * parameters, each shown for its operation; and each operation's `prepare`, for the router.
 */
export function resource(
	value: string,
	defaultOperation: string,
	entries: Record<string, OperationEntry>,
): { description: INodeProperties[]; operations: Record<string, Operation> } {
	const list = Object.entries(entries);
	const show = (operation: string) => ({ show: { resource: [value], operation: [operation] } });
	return {
		description: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: [value] } },
				options: list.map(([key, { name, description, action }]) => ({
					name,
					value: key,
					description,
					action,
				})),
				default: defaultOperation,
			},
			...list.flatMap(([key, { operation }]) =>
				updateDisplayOptions(show(key), operation.properties),
			),
		],
		operations: Object.fromEntries(list.map(([key, { operation }]) => [key, operation.prepare])),
	};
}

/** A collection of optional fields: "Additional Fields", "Update Fields", "Filters". */
export function collection(
	[displayName, name, placeholder]: [string, string, string],
	options: INodeProperties[],
	description?: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'collection',
		placeholder,
		default: {},
		...(description ? { description } : {}),
		options,
	};
}

/** An "Additional Fields" collection of these optional fields. */
export const additionalFields = (options: INodeProperties[], description?: string) =>
	collection(['Additional Fields', 'additionalFields', 'Add Field'], options, description);
