// New Article: each article created (article.cree).
import { listWatch } from './listWatch';

export const article = listWatch({
	name: 'article',
	label: 'New Article',
	description: 'Each article created (article.cree). Needs articles:read.',
	path: '/articles',
	type: 'article.cree',
	timeField: 'created_at',
});
