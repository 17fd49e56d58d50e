// Get Many: the parameters (Return All / Limit, Filters, Options) and how they are read.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../shared/descriptions';
import { MAX_PAGE_SIZE } from '../../shared/transport';
import {
	checkDateRange,
	invalid,
	isBlank,
	labelOf,
	toBoolean,
	toInteger,
	toOptionalText,
	toText,
} from '../../shared/validation';
import {
	collection,
	dateField,
	queryParametersProperty,
	returnAllAndLimit,
} from './common.descriptions';
import type { ItemErp, Prepared } from './erp';
import type { FieldCheck } from './fields';
import { checkFields, fieldSpecs, isRecord, source } from './fields';
import { isLocatorValue, resolveArticleIds } from './locators';

/** "Options" of every list: the page size, and free query parameters passed through unchanged. */
const listOptions = optionsCollection([
	{
		displayName: 'Page Size',
		name: 'pageSize',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE },
		default: MAX_PAGE_SIZE,
		description:
			"How many items each request asks for (the API parameter limit, or its name in the credential's Custom API Conventions), from 1 to 100. It changes the number of requests, not the items returned.",
		hint: 'Leave it out unless your ERP needs smaller pages. If the ERP refuses a page size, the node retries once with the largest size the ERP states (or its default) and keeps using that for this credential.',
	},
	queryParametersProperty(
		"Extra query parameters sent as they are, for filters this node does not list. The cursor and page size parameters (cursor and limit, unless the credential's Custom API Conventions name them otherwise) are managed by the node and refused here.",
	),
]);

const dateRangeFilters = [
	dateField('End Date', 'date_fin', 'Last day included, YYYY-MM-DD (API filter date_fin)'),
	dateField('Start Date', 'date_debut', 'First day included, YYYY-MM-DD (API filter date_debut)'),
];

/**
 * The "Query Parameters" (`{ parameter: [{ name, value }] }`), checked: a name in `taken` (the
 * filters) or given twice is refused; `erpGetMany` (its `free`) checks the node's own names.
 */
export function readQueryParameters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: unknown,
	taken: IDataObject = {},
): IDataObject {
	const src = source(ctx, 'Query Parameters', itemIndex);
	const list = (raw as { parameter?: unknown } | undefined)?.parameter ?? [];
	if (!Array.isArray(list)) throw invalid(src, 'expected a list of name and value pairs');
	const qs: IDataObject = {};
	for (const [k, entry] of (list as unknown[]).entries()) {
		const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
		const at = (field: string) =>
			source(ctx, `Query Parameters › Parameter ${k + 1} › ${field}`, itemIndex);
		const key = toText(at('Name'), name, 'queryParameterName');
		const text = toOptionalText(at('Value'), value, 'queryParameterValue') ?? '';
		if (key in taken || key in qs) {
			throw invalid(src, `"${key}" is given twice (as a filter or another query parameter)`);
		}
		qs[key] = text;
	}
	return qs;
}

/** The "Search Text" filter (API filter q) of a list the API searches by text. */
export const searchText = (description: string): INodeProperties => ({
	displayName: 'Search Text',
	name: 'q',
	type: 'string',
	default: '',
	description,
});

/** Return All and, without it, Limit (at least 1). `limit` is undefined with Return All. */
export function readReturnAll(ctx: IExecuteFunctions, itemIndex: number) {
	const label = (name: string) => source(ctx, labelOf(returnAllAndLimit, name), itemIndex);
	const returnAll = toBoolean(
		label('returnAll'),
		ctx.getNodeParameter('returnAll', itemIndex, false),
	);
	if (returnAll) return { returnAll };
	const limit = ctx.getNodeParameter('limit', itemIndex, 50);
	return { returnAll, limit: toInteger(label('limit'), limit, { min: 1 }) };
}

/** Get Many of `path`: Return All / Limit, Filters (dated: then Start and End Date), Options. */
export function listOperation(
	path: string,
	{
		filters,
		checks,
		dated = false,
	}: { filters: INodeProperties[]; checks: Record<string, FieldCheck>; dated?: boolean },
) {
	const properties: INodeProperties[] = [
		...returnAllAndLimit,
		collection(
			['Filters', 'filters', 'Add Filter'],
			dated ? [...filters, ...dateRangeFilters] : filters,
		),
		listOptions,
	];
	const date: FieldCheck = { kind: 'date' };
	const dates = { date_debut: date, date_fin: date };
	const specs = fieldSpecs(properties, dated ? { ...checks, ...dates } : checks);
	return {
		properties,
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			// Only nothing is "not set" (empty text, null, undefined, or a locator holding one); any
			// other value is checked, never dropped: a dropped filter would return the unfiltered list.
			const present: IDataObject = {};
			for (const [key, value] of Object.entries(this.getNodeParameter('filters', itemIndex, {}))) {
				const given = specs[key]?.kind === 'locator' && isLocatorValue(value) ? value.value : value;
				if (!isBlank(given)) present[key] = value;
			}
			const filters = checkFields(this, itemIndex, specs, present);
			if (dated) {
				const { date_debut: from, date_fin: to } = filters as Record<string, string | undefined>;
				checkDateRange(source(this, specs.date_debut.label, itemIndex), from, to);
			}
			const { returnAll, limit } = readReturnAll(this, itemIndex);
			const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
			const extra = readQueryParameters(this, itemIndex, options.queryParameters, filters);
			const pageSizeLabel = source(this, labelOf([listOptions], 'pageSize'), itemIndex);
			const pageSize = isBlank(options.pageSize)
				? undefined
				: toInteger(pageSizeLabel, options.pageSize, { min: 1, max: MAX_PAGE_SIZE });
			// The transport checks these against its cursor and page-size names before running `query`.
			const free = { label: labelOf([listOptions], 'queryParameters'), values: extra };
			// The filters as sent: an article given by reference resolved to its ID (a lookup each).
			const query = async () => {
				const qs = { ...filters };
				for (const [key, value] of Object.entries(filters)) {
					if (!isRecord(value)) continue;
					const { reference, label } = value as { reference: string; label: string };
					[qs[key]] = await resolveArticleIds(this, erp, [{ locator: { reference }, label }]);
				}
				return qs;
			};
			return async () => await erp.getMany(path, query, { returnAll, limit, pageSize, free });
		},
	};
}
