import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { articleLocator, updateFields } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields, requireSomeFields } from '../fields';
import { getLocator, resolveArticleIds } from '../locators';
import { articleFieldSpecs, articleFields } from './fields';

const fieldsToUpdate = updateFields([
	articleFields.categorie_id,
	articleFields.designation,
	articleFields.seuil_alerte,
	articleFields.reference,
	articleFields.stock,
	articleFields.prix_ht,
	articleFields.tva,
]);

export const properties: INodeProperties[] = [articleLocator, fieldsToUpdate];

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const locator = getLocator(this, itemIndex, articleLocator, 'article');
	const body = checkFields(
		this,
		itemIndex,
		articleFieldSpecs,
		requireSomeFields(this, itemIndex, fieldsToUpdate),
	);
	return async () => {
		const [id] = await resolveArticleIds(this, erp, [
			{ locator, label: articleLocator.displayName },
		]);
		return await erp.request({
			method: 'PATCH',
			path: `/articles/${id}`,
			body,
			resource: `Article ${id}`,
		});
	};
}
