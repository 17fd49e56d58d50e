import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { articleLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { getLocator, resolveArticleIds } from '../locators';

export const description = updateDisplayOptions(
	{ show: { resource: ['article'], operation: ['get'] } },
	[articleLocator] as INodeProperties[],
);

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const locator = getLocator(this, itemIndex, articleLocator, 'article');
	return async () => {
		const [id] = await resolveArticleIds(this, erp, [
			{ locator, label: articleLocator.displayName },
		]);
		return await erp.request({
			method: 'GET',
			path: `/articles/${id}`,
			resource: `Article ${id}`,
		});
	};
}
