import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../../shared/descriptions';
import { labelOf, toBoolean } from '../../../shared/validation';
import type { ItemErp, Prepared } from '../erp';
import { source } from '../fields';
import { findArticleByReference } from '../locators';
import { findOrCreate } from '../records';
import * as create from './create.operation';

const [reference, ...fields] = create.properties;

export const properties: INodeProperties[] = [
	{
		...reference,
		description: 'Reference to look for; an article is created with it when none has it',
	},
	...fields,
	optionsCollection([
		{
			displayName: 'Update If Found',
			name: 'updateIfFound',
			type: 'boolean',
			default: false,
			description:
				'Whether to update the found article with the values above when any of them differs',
		},
	]),
	{
		displayName:
			'The output is the article plus "_action": "found", "created" or "updated", which tells what happened',
		name: 'findOrCreateNotice',
		type: 'notice',
		default: '',
	},
];

/** Fields of `wanted` whose value differs from `current` (categorie_id compares with categorie.id). */
function changedFields(current: IDataObject, wanted: IDataObject): IDataObject {
	const changes: IDataObject = {};
	for (const [key, value] of Object.entries(wanted)) {
		const now =
			key === 'categorie_id' ? (current.categorie as IDataObject | undefined)?.id : current[key];
		if (now !== value) changes[key] = value;
	}
	return changes;
}

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const body = create.read(this, itemIndex);
	const { updateIfFound = false } = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const update = toBoolean(
		source(this, labelOf(properties, 'updateIfFound'), itemIndex),
		updateIfFound,
	);
	const find = async () => await findArticleByReference(erp, body.reference as string);
	return async () =>
		await findOrCreate(erp, find, '/articles', body, async (found) => {
			const changes = update ? changedFields(found, body) : {};
			if (Object.keys(changes).length === 0) return { ...found, _action: 'found' };
			const updated = await erp.request({
				method: 'PATCH',
				path: `/articles/${String(found.id)}`,
				body: changes,
				resource: `Article ${String(found.id)}`,
			});
			return { ...updated, _action: 'updated' };
		});
}
