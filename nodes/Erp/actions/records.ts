// The operations on one record that articles, clients and invoices share: Create, Get, Update and
// Find or Create, each built from the resource's path, locator and fields.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { IdKind } from '../../shared/validation';
import { additionalFields, collection } from './common.descriptions';
import type { ItemErp, ItemRequest, Prepared } from './erp';
import type { FieldSpec } from './fields';
import { checkFields, requireSomeFields } from './fields';
import { getLocator, resolveArticleIds } from './locators';

const RECORDS = {
	article: ['/articles', 'Article'],
	client: ['/clients', 'Client'],
	invoice: ['/factures', 'Invoice'],
} as const;

/** The request for the record `id`; `resource` names it in a "not found" error. */
export function onRecord(
	kind: IdKind,
	id: string,
	method: 'GET' | 'PATCH' = 'GET',
	body?: IDataObject,
): ItemRequest {
	const [path, name] = RECORDS[kind];
	return { method, path: `${path}/${id}`, ...(body && { body }), resource: `${name} ${id}` };
}

/** The ID the item's `locator` parameter names, an article reference looked up when the step runs. */
function locate(ctx: IExecuteFunctions, itemIndex: number, locator: INodeProperties, kind: IdKind) {
	const given = getLocator(ctx, itemIndex, locator, kind);
	return async (erp: ItemErp) => {
		const [id] = await resolveArticleIds(ctx, erp, [
			{ locator: given, label: locator.displayName },
		]);
		return id;
	};
}

/** Get: the record the locator names. */
export function getOperation(kind: IdKind, locator: INodeProperties) {
	return {
		properties: [locator],
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			const id = locate(this, itemIndex, locator, kind);
			return async () => await erp.request(onRecord(kind, await id(erp)));
		},
	};
}

/** Update: the record the locator names, with the "Update Fields" given (at least one). */
export function updateOperation(
	kind: IdKind,
	locator: INodeProperties,
	fields: INodeProperties[],
	specs: Record<string, FieldSpec>,
) {
	const fieldsToUpdate = collection(['Update Fields', 'updateFields', 'Add Field'], fields);
	return {
		properties: [locator, fieldsToUpdate],
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			const id = locate(this, itemIndex, locator, kind);
			const given = requireSomeFields(this, itemIndex, fieldsToUpdate);
			const body = checkFields(this, itemIndex, specs, given);
			return async () => await erp.request(onRecord(kind, await id(erp), 'PATCH', body));
		},
	};
}

/**
 * Create: a record of the `required` fields (required parameters) and the `optional` ones
 * ("Additional Fields"); `read` gives the checked body, for Find or Create too.
 */
export function createOperation(
	path: string,
	required: INodeProperties[],
	optional: INodeProperties[],
	specs: Record<string, FieldSpec>,
) {
	function read(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
		const values: IDataObject = {};
		for (const { name } of required) values[name] = ctx.getNodeParameter(name, itemIndex);
		Object.assign(values, ctx.getNodeParameter('additionalFields', itemIndex, {}));
		return checkFields(ctx, itemIndex, specs, values);
	}
	return {
		properties: [
			...required.map((field) => ({ ...field, required: true })),
			additionalFields(optional),
		],
		read,
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			const body = read(this, itemIndex);
			return async () => await erp.request({ method: 'POST', path, body });
		},
	};
}

/**
 * Find or create: the record `find` returns, marked `_action: 'found'` (or what `whenFound` makes
 * of it), else the one POSTed to `path` with `body`, marked `_action: 'created'`.
 */
export async function findOrCreate(
	erp: ItemErp,
	find: () => Promise<IDataObject | undefined>,
	path: string,
	body: IDataObject,
	whenFound: (found: IDataObject) => Promise<IDataObject> = async (found) => ({
		...found,
		_action: 'found',
	}),
): Promise<IDataObject> {
	const found = await find();
	if (found) return await whenFound(found);
	const created = await erp.request({ method: 'POST', path, body });
	return { ...created, _action: 'created' };
}
