// Helpers shared by the operations: reading parameters into checked values, and the few
// lookups several operations need. All HTTP goes through the shared transport.
//
// Every operation works in two steps (see router.ts): `prepare` reads and checks the item's
// parameters without any request and returns a `Prepared` step, which sends the requests.
import type { IDataObject, IExecuteFunctions, INodeParameterResourceLocator } from 'n8n-workflow';

import type { ErpRequest } from '../../shared/transport';
import {
	erpApiRequest,
	erpGetMany,
	erpPaginate,
	getRequestSettings,
	MAX_PAGE_SIZE,
} from '../../shared/transport';
import { RESERVED_QUERY_PARAMETERS } from './common.descriptions';
import type { IdKind, TextLimit, ValueSource } from './validation';
import {
	checkDateRange,
	invalid,
	isBlank,
	toBoolean,
	toDate,
	toEmail,
	toEnum,
	toId,
	toInteger,
	toOptionalText,
	toText,
} from './validation';

/** What an operation returns for one input item: one record or a list of records. */
export type OperationResult = IDataObject | IDataObject[];

/** The request step of an operation, built once the item's parameters passed every check. */
export type Prepared = () => Promise<OperationResult>;

export function source(ctx: IExecuteFunctions, label: string, itemIndex: number): ValueSource {
	return { node: ctx.getNode(), label, itemIndex };
}

/** One request for item `itemIndex`, with that item's request options (wait cap, idempotency key). */
export async function request(
	this: IExecuteFunctions,
	itemIndex: number,
	req: Omit<ErpRequest, 'itemIndex'>,
): Promise<IDataObject> {
	return (await erpApiRequest.call(
		this,
		{ ...req, itemIndex },
		getRequestSettings(this, itemIndex),
	)) as IDataObject;
}

// ---------- resource locators ----------

export type Locator = { id: string } | { reference: string };

/** Whether `raw` has the shape of a resource locator's value (`{ mode, value }`). */
function isLocatorValue(raw: unknown): raw is INodeParameterResourceLocator {
	return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'mode' in raw;
}

/**
 * Reads a resource locator (or a plain value, as an AI tool or an expression may give, taken as
 * an ID) and checks it. An article locator in "By Reference" mode gives the reference, resolved
 * later.
 */
export function readLocator(src: ValueSource, raw: unknown, kind: IdKind): Locator {
	const locator = isLocatorValue(raw) ? raw : { mode: 'id', value: raw };
	if (locator.mode === 'reference' && kind === 'article') {
		return { reference: toText(src, locator.value, 'articleReference') };
	}
	return { id: toId(src, locator.value, kind) };
}

export function getLocator(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	kind: IdKind,
): Locator {
	return readLocator(source(ctx, label, itemIndex), ctx.getNodeParameter(name, itemIndex), kind);
}

/** The ID behind a client or invoice locator (they have no reference mode). */
export function getLocatorId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	kind: 'client' | 'invoice',
): string {
	return (getLocator(ctx, itemIndex, name, label, kind) as { id: string }).id;
}

/** The article whose reference is exactly `reference`, or undefined. */
export async function findArticleByReference(
	this: IExecuteFunctions,
	itemIndex: number,
	reference: string,
): Promise<IDataObject | undefined> {
	for await (const page of erpPaginate.call(
		this,
		'/articles',
		{ reference },
		{ pageSize: 100 },
		getRequestSettings(this, itemIndex),
	)) {
		const match = page.find((article) => article.reference === reference);
		if (match) return match;
	}
	return undefined;
}

/** The client whose email is `email` (compared without case), or undefined. */
export async function findClientByEmail(
	this: IExecuteFunctions,
	itemIndex: number,
	email: string,
): Promise<IDataObject | undefined> {
	const wanted = email.toLowerCase();
	for await (const page of erpPaginate.call(
		this,
		'/clients',
		{ q: email },
		{ pageSize: 100 },
		getRequestSettings(this, itemIndex),
	)) {
		const match = page.find((client) => String(client.email ?? '').toLowerCase() === wanted);
		if (match) return match;
	}
	return undefined;
}

/**
 * The article IDs of `locators`, in order. Each distinct reference is looked up once; an unknown
 * one fails naming the parameter it came from.
 */
export async function resolveArticleIds(
	this: IExecuteFunctions,
	itemIndex: number,
	locators: Array<{ locator: Locator; label: string }>,
): Promise<string[]> {
	const byReference = new Map<string, string>();
	for (const { locator, label } of locators) {
		if (!('reference' in locator) || byReference.has(locator.reference)) continue;
		const article = await findArticleByReference.call(this, itemIndex, locator.reference);
		if (!article) {
			throw invalid(
				source(this, label, itemIndex),
				`no article has the reference "${locator.reference}"`,
				'References are matched exactly (case and spaces included).',
			);
		}
		byReference.set(locator.reference, String(article.id));
	}
	return locators.map(({ locator }) =>
		'id' in locator ? locator.id : (byReference.get(locator.reference) as string),
	);
}

// ---------- fields ----------

/**
 * How one parameter is checked. `label` is its display name; `api` the API field or filter it
 * fills when that differs from the parameter's name. Text kinds name their length limit
 * (`MAX_LENGTH` in validation.ts).
 */
export type FieldSpec = { label: string; api?: string } & (
	| { kind: 'text' | 'optionalText'; max: TextLimit }
	| { kind: 'email' | 'date' }
	| { kind: 'integer'; min?: number; max?: number }
	| { kind: 'enum'; values: readonly string[] }
	| { kind: 'locator'; idKind: IdKind }
);

function checkField(src: ValueSource, spec: FieldSpec, value: unknown): unknown {
	switch (spec.kind) {
		case 'text':
			return toText(src, value, spec.max);
		case 'optionalText':
			return toOptionalText(src, value, spec.max);
		case 'email':
			return toEmail(src, value);
		case 'date':
			return toDate(src, value);
		case 'integer':
			return toInteger(src, value, spec);
		case 'enum':
			return toEnum(src, value, spec.values);
		case 'locator': {
			// An ID is final; an article reference is resolved when the request step runs.
			const locator = readLocator(src, value, spec.idKind);
			return 'id' in locator ? locator.id : { reference: locator.reference, label: src.label };
		}
	}
}

/**
 * Checks every present value of `values` against `specs` (keyed by parameter name) and returns
 * them under the API's names. A name without a spec is refused rather than silently dropped.
 * A locator gives its ID, or `{ reference, label }` for an article given by reference.
 */
export function checkFields(
	ctx: IExecuteFunctions,
	itemIndex: number,
	specs: Record<string, FieldSpec>,
	values: IDataObject,
): IDataObject {
	const body: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		const spec = specs[key];
		if (!spec) throw invalid(source(ctx, key, itemIndex), 'this field is not supported here');
		body[spec.api ?? key] = checkField(
			source(ctx, spec.label, itemIndex),
			spec,
			value,
		) as IDataObject[string];
	}
	return body;
}

/** Reads a collection parameter ("Update Fields") and refuses it empty. */
export function requireSomeFields(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
): IDataObject {
	const values = ctx.getNodeParameter(name, itemIndex, {}) as IDataObject;
	if (Object.keys(values).length === 0) {
		throw invalid(
			source(ctx, label, itemIndex),
			'add at least one field to change',
			'An update with no field would change nothing.',
		);
	}
	return values;
}

// ---------- lists ----------

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

/** readFilters for a dated list: adds the Start Date and End Date filters and checks their order. */
export function readDatedFilters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	specs: Record<string, FieldSpec>,
): IDataObject {
	const filters = readFilters(ctx, itemIndex, {
		...specs,
		date_debut: { label: 'Start Date', kind: 'date' },
		date_fin: { label: 'End Date', kind: 'date' },
	});
	checkDateRange(
		source(ctx, 'Start Date', itemIndex),
		filters.date_debut as string | undefined,
		filters.date_fin as string | undefined,
	);
	return filters;
}

/**
 * The "Query Parameters" fixed collection (`{ parameter: [{ name, value }] }`), checked: names
 * in `reserved` or already in `taken` (the filters) are refused, and so is a name given twice.
 */
export function readQueryParameters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: unknown,
	reserved: readonly string[] = [],
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
		if (reserved.includes(key)) {
			throw invalid(src, `"${key}" is set by the node (use Return All / Limit instead)`);
		}
		if (key in taken || key in qs) {
			throw invalid(src, `"${key}" is given twice (as a filter or another query parameter)`);
		}
		qs[key] = text;
	}
	return qs;
}

/** Free query parameters from "Options", refused when they clash with the node's own. */
function freeQueryParameters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	filters: IDataObject,
): IDataObject {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return readQueryParameters(
		ctx,
		itemIndex,
		options.queryParameters,
		RESERVED_QUERY_PARAMETERS,
		filters,
	);
}

/**
 * A list operation: checked filters (API names; article locators by reference are resolved when
 * the step runs) plus free query parameters, read with Return All / Limit and the Page Size option
 * through the transport.
 */
export function prepareGetMany(
	ctx: IExecuteFunctions,
	itemIndex: number,
	path: string,
	filters: IDataObject,
): Prepared {
	const returnAll = toBoolean(
		source(ctx, 'Return All', itemIndex),
		ctx.getNodeParameter('returnAll', itemIndex, false),
	);
	const limit = returnAll
		? undefined
		: toInteger(source(ctx, 'Limit', itemIndex), ctx.getNodeParameter('limit', itemIndex, 50), {
				min: 1,
			});
	const extra = freeQueryParameters(ctx, itemIndex, filters);
	const { pageSize } = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const checkedPageSize = isBlank(pageSize)
		? undefined
		: toInteger(source(ctx, 'Page Size', itemIndex), pageSize, { min: 1, max: MAX_PAGE_SIZE });
	return async () => {
		const qs: IDataObject = { ...extra };
		for (const [key, value] of Object.entries(filters)) {
			if (typeof value !== 'object' || value === null) {
				qs[key] = value;
			} else {
				const { reference, label } = value as { reference: string; label: string };
				[qs[key]] = await resolveArticleIds.call(ctx, itemIndex, [
					{ locator: { reference }, label },
				]);
			}
		}
		return await erpGetMany.call(
			ctx,
			path,
			qs,
			{ returnAll, limit, pageSize: checkedPageSize },
			getRequestSettings(ctx, itemIndex),
		);
	};
}
