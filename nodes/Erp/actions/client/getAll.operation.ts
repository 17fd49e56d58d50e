import { listOperation } from '../lists';

export const { properties, prepare } = listOperation('/clients', {
	filters: [
		{
			displayName: 'Search Text',
			name: 'q',
			type: 'string',
			default: '',
			description: 'Text found in the name or the email (API filter q)',
		},
	],
	checks: { q: { kind: 'text', max: 'filter' } },
});
