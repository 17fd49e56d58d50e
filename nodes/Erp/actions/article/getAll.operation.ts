import { listOperation, searchText } from '../lists';
import { articleChecks, articleFields } from './fields';

export const { properties, prepare } = listOperation('/articles', {
	filters: [
		articleFields.categorie_id,
		{
			...articleFields.reference,
			description: 'Only the article with exactly this reference (API filter reference)',
		},
		searchText('Text found in the designation or the reference (API filter q)'),
	],
	// The reference filter is checked as the article's reference is (at most 100 characters).
	checks: {
		categorie_id: articleChecks.categorie_id,
		reference: articleChecks.reference,
		q: { kind: 'text', max: 'filter' },
	},
});
