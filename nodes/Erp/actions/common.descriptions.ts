// Parameter descriptions shared by several operations.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { IdKind } from '../../shared/validation';
import { ID_PREFIXES, idPattern } from '../../shared/validation';
import type { Operation } from './erp';

/** Locator `<kind>Id`: a list (`search<Kind>s`, methods/index.ts), an ID, an article reference. */
function locator(kind: IdKind, description: string): INodeProperties {
	const displayName = kind[0].toUpperCase() + kind.slice(1);
	const prefix = ID_PREFIXES[kind];
	const errorMessage = `Not a valid ${kind} ID (${prefix}_…)`;
	const byReference = { displayName: 'By Reference', name: 'reference', type: 'string' as const };
	return {
		displayName,
		name: `${kind}Id`,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select ${kind === 'client' ? 'a' : 'an'} ${kind}...`,
				typeOptions: { searchListMethod: `search${displayName}s`, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: `e.g. ${prefix}_00000001`,
				validation: [{ type: 'regex', properties: { regex: idPattern(kind), errorMessage } }],
			},
			...(kind === 'article' ? [{ ...byReference, placeholder: 'e.g. REF-000001' }] : []),
		],
	};
}

export const articleLocator = locator(
	'article',
	'The article, picked from the list, by ID (art_…) or by its exact reference',
);
export const clientLocator = locator('client', 'The client, picked from the list or by ID (cli_…)');
export const invoiceLocator = locator(
	'invoice',
	'The invoice, picked from the list or by ID (fac_…)',
);

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

/** An operation's entry in its resource's Operation list, with its module. */
type OperationEntry = Pick<INodePropertyOptions, 'name' | 'description' | 'action'> & {
	operation: { properties: INodeProperties[]; prepare: Operation };
};

/** A resource's Operation list (keyed by value), its operations' parameters and `prepare`s. */
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

export const additionalFields = (options: INodeProperties[], description?: string) =>
	collection(['Additional Fields', 'additionalFields', 'Add Field'], options, description);
