// List operations (Get Many): their Filters, free Query Parameters, and Return All / Limit, read
// through the item's ItemErp.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

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
import { MAX_PAGE_SIZE } from '../../shared/transport';
import {
	dateRangeFilters,
	listOptions,
	listProperties,
	returnAllAndLimit,
} from './common.descriptions';
import type { ItemErp, Prepared } from './erp';
import type { FieldCheck, FieldSpec } from './fields';
import { checkFields, fieldSpecs, source } from './fields';
import { isLocatorValue, resolveArticleIds } from './locators';

/**
 * Reads the "Filters" collection of a list and checks it. Only nothing means "not set": an empty
 * text, null or undefined, or a locator whose value is one of these. Any other value is checked
 * (an object given to a text filter is refused), never dropped: a dropped filter would return
 * the unfiltered list.
 */
export function readFilters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	specs: Record<string, FieldSpec>,
): IDataObject {
	const raw = ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const present: IDataObject = {};
	for (const [key, value] of Object.entries(raw)) {
		const given = specs[key]?.kind === 'locator' && isLocatorValue(value) ? value.value : value;
		if (!isBlank(given)) present[key] = value;
	}
	return checkFields(ctx, itemIndex, specs, present);
}

const dateRangeSpecs = fieldSpecs(dateRangeFilters, {
	date_debut: { kind: 'date' },
	date_fin: { kind: 'date' },
});

/** readFilters for a dated list: adds the Start Date and End Date filters and checks their order. */
export function readDatedFilters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	specs: Record<string, FieldSpec>,
): IDataObject {
	const filters = readFilters(ctx, itemIndex, { ...specs, ...dateRangeSpecs });
	checkDateRange(
		source(ctx, dateRangeSpecs.date_debut.label, itemIndex),
		filters.date_debut as string | undefined,
		filters.date_fin as string | undefined,
	);
	return filters;
}

/**
 * The "Query Parameters" fixed collection (`{ parameter: [{ name, value }] }`), checked: names
 * already in `taken` (the filters) are refused, and so is a name given twice. The names the node
 * sets itself depend on the credential: Get Many's transport call checks them once it is read
 * (`erpGetMany`'s `free`).
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
export function readReturnAll(
	ctx: IExecuteFunctions,
	itemIndex: number,
): { returnAll: boolean; limit?: number } {
	const returnAll = toBoolean(
		source(ctx, labelOf(returnAllAndLimit, 'returnAll'), itemIndex),
		ctx.getNodeParameter('returnAll', itemIndex, false),
	);
	if (returnAll) return { returnAll };
	const limit = toInteger(
		source(ctx, labelOf(returnAllAndLimit, 'limit'), itemIndex),
		ctx.getNodeParameter('limit', itemIndex, 50),
		{ min: 1 },
	);
	return { returnAll, limit };
}

/** The filters as sent: article locators by reference resolved to IDs (a lookup each). */
async function filterQuery(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	filters: IDataObject,
): Promise<IDataObject> {
	const qs: IDataObject = {};
	for (const [key, value] of Object.entries(filters)) {
		if (typeof value !== 'object' || value === null) {
			qs[key] = value;
		} else {
			const { reference, label } = value as { reference: string; label: string };
			[qs[key]] = await resolveArticleIds(ctx, erp, [{ locator: { reference }, label }]);
		}
	}
	return qs;
}

/**
 * A list operation: checked filters (API names; article locators by reference are resolved when
 * the step runs) plus free query parameters from "Options", read with Return All / Limit and
 * the Page Size option.
 */
export function prepareGetMany(
	ctx: IExecuteFunctions,
	itemIndex: number,
	erp: ItemErp,
	path: string,
	filters: IDataObject,
): Prepared {
	const { returnAll, limit } = readReturnAll(ctx, itemIndex);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const extra = readQueryParameters(ctx, itemIndex, options.queryParameters, filters);
	const pageSize = isBlank(options.pageSize)
		? undefined
		: toInteger(source(ctx, labelOf([listOptions], 'pageSize'), itemIndex), options.pageSize, {
				min: 1,
				max: MAX_PAGE_SIZE,
			});
	// The transport reads the credential once: it refuses a query parameter named as its list
	// conventions name the cursor or the page size, then resolves the filters, then reads.
	const free = { label: labelOf([listOptions], 'queryParameters'), values: extra };
	return async () =>
		await erp.getMany(path, async () => await filterQuery(ctx, erp, filters), {
			returnAll,
			limit,
			pageSize,
			free,
		});
}

/**
 * A Get Many operation of the list at `path`: its Filters, checked as `checks` says, and for a
 * dated list the Start Date and End Date filters after them.
 */
export function listOperation(
	path: string,
	{
		filters,
		checks,
		dated = false,
	}: { filters: INodeProperties[]; checks: Record<string, FieldCheck>; dated?: boolean },
) {
	const properties = listProperties(dated ? [...filters, ...dateRangeFilters] : filters);
	const specs = fieldSpecs(properties, checks);
	const read = dated ? readDatedFilters : readFilters;
	return {
		properties,
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			return prepareGetMany(this, itemIndex, erp, path, read(this, itemIndex, specs));
		},
	};
}
