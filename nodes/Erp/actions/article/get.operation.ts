import type { IExecuteFunctions } from 'n8n-workflow';

import { articleLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { getLocator, resolveArticleIds } from '../locators';

export const properties = [articleLocator];

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
