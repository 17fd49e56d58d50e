// List operations (Get Many): their parameters (Return All / Limit, Filters, Options) and how
// they are read: the filters checked, free Query Parameters, Return All / Limit and Page Size.
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

/** Start Date and End Date filters of the dated lists (API filters date_debut and date_fin). */
const dateRangeFilters = [
	dateField('End Date', 'date_fin', 'Last day included, YYYY-MM-DD (API filter date_fin)'),
	dateField('Start Date', 'date_debut', 'First day included, YYYY-MM-DD (API filter date_debut)'),
];

/**
 * The "Query Parameters" (`{ parameter: [{ name, value }] }`), checked: a name in `taken` (the
 * filters) or given twice is refused. The names the node sets itself depend on the credential:
 * `erpGetMany` checks them (its `free`).
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

/**
 * A Get Many operation of the list at `path`: Return All / Limit, its Filters (checked as `checks`
 * says; a dated list adds Start Date and End Date, in order), then Options.
 */
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
			// Only nothing means "not set": an empty text, null or undefined, or a locator whose value
			// is one of these. Any other value is checked, never dropped: a dropped filter would
			// return the unfiltered list.
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
			// The transport reads the credential once: it refuses a query parameter named as its list
			// conventions name the cursor or the page size, then resolves the filters, then reads.
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
