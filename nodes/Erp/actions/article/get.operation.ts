import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { articleLocator } from '../common.descriptions';
import type { Prepared } from '../utils';
import { getLocator, request, resolveArticleIds } from '../utils';

export const description = updateDisplayOptions(
	{ show: { resource: ['article'], operation: ['get'] } },
	[articleLocator] as INodeProperties[],
);

export function prepare(this: IExecuteFunctions, itemIndex: number): Prepared {
	const locator = getLocator(this, itemIndex, 'articleId', 'Article', 'article');
	return async () => {
		const [id] = await resolveArticleIds.call(this, itemIndex, [{ locator, label: 'Article' }]);
		return await request.call(this, itemIndex, {
			method: 'GET',
			path: `/articles/${id}`,
			resource: `Article ${id}`,
		});
	};
}
