import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { articleLocator } from '../common.descriptions';
import type { Prepared } from '../utils';
import { checkFields, getLocator, request, requireSomeFields, resolveArticleIds } from '../utils';
import { articleFieldSpecs, articleFields } from './fields';

const properties: INodeProperties[] = [
	articleLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			articleFields.categorie_id,
			articleFields.designation,
			articleFields.seuil_alerte,
			articleFields.reference,
			articleFields.stock,
			articleFields.prix_ht,
			articleFields.tva,
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['article'], operation: ['update'] } },
	properties,
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const locator = getLocator(this, itemIndex, 'articleId', 'Article', 'article');
	const body = checkFields(
		this,
		itemIndex,
		articleFieldSpecs,
		requireSomeFields(this, itemIndex, 'updateFields', 'Update Fields'),
	);
	return async () => {
		const [id] = await resolveArticleIds.call(this, itemIndex, [{ locator, label: 'Article' }]);
		return await request.call(this, itemIndex, {
			method: 'PATCH',
			path: `/articles/${id}`,
			body,
			resource: `Article ${id}`,
		});
	};
}
