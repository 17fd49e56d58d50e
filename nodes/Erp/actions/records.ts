// Create, Get, Update and Find or Create, shared by articles, clients and invoices.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { IdKind } from '../../shared/validation';
import { invalid } from '../../shared/validation';
import { additionalFields, collection } from './common.descriptions';
import type { ItemErp, ItemRequest, Prepared } from './erp';
import type { FieldSpec } from './fields';
import { checkFields, source } from './fields';
import { getLocator, resolveArticleIds } from './locators';

const RECORDS = {
	article: ['/articles', 'Article'],
	client: ['/clients', 'Client'],
	invoice: ['/factures', 'Invoice'],
} as const;

/** The GET request of the record `locator` names (checked now; a reference looked up later). */
function locate(ctx: IExecuteFunctions, itemIndex: number, locator: INodeProperties, kind: IdKind) {
	const given = getLocator(ctx, itemIndex, locator, kind);
	const [path, name] = RECORDS[kind];
	return async (erp: ItemErp): Promise<ItemRequest> => {
		const label = locator.displayName;
		const [id] = await resolveArticleIds(ctx, erp, [{ locator: given, label }]);
		return { method: 'GET', path: `${path}/${id}`, resource: `${name} ${id}` };
	};
}

export function getOperation(kind: IdKind, locator: INodeProperties) {
	return {
		properties: [locator],
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			const request = locate(this, itemIndex, locator, kind);
			return async () => await erp.request(await request(erp));
		},
	};
}

/** Update: the record the locator names, with the "Update Fields" given (at least one of `fields`). */
export function updateOperation(
	kind: IdKind,
	locator: INodeProperties,
	fields: Record<string, INodeProperties>,
	specs: Record<string, FieldSpec>,
) {
	const options = Object.values(fields);
	const fieldsToUpdate = collection(['Update Fields', 'updateFields', 'Add Field'], options);
	return {
		properties: [locator, fieldsToUpdate],
		prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
			const request = locate(this, itemIndex, locator, kind);
			const given = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
			if (Object.keys(given).length === 0) {
				throw invalid(
					source(this, fieldsToUpdate.displayName, itemIndex),
					'add at least one field to change',
					'An update with no field would change nothing.',
				);
			}
			const body = checkFields(this, itemIndex, specs, given);
			return async () => await erp.request({ ...(await request(erp)), method: 'PATCH', body });
		},
	};
}

/** Create: the `required` fields and the `optional` ones; `read` gives the body (Find or Create too). */
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

/** Find or create: `find`'s record, `_action: 'found'` (or `whenFound`'s), else `body` POSTed, 'created'. */
export async function findOrCreate(
	erp: ItemErp,
	find: () => Promise<IDataObject | undefined>,
	path: string,
	body: IDataObject,
	whenFound?: (found: IDataObject) => Promise<IDataObject>,
): Promise<IDataObject> {
	const found = await find();
	if (found) return whenFound ? await whenFound(found) : { ...found, _action: 'found' };
	const created = await erp.request({ method: 'POST', path, body });
	return { ...created, _action: 'created' };
}
