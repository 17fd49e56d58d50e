import { articleLocator } from '../common.descriptions';
import { listOperation } from '../lists';

export const { properties, prepare } = listOperation('/stock/mouvements', {
	filters: [
		{
			...articleLocator,
			required: false,
			description: 'Only the movements of this article (API filter article_id)',
		},
	],
	checks: { articleId: { api: 'article_id', kind: 'locator', idKind: 'article' } },
	dated: true,
});
