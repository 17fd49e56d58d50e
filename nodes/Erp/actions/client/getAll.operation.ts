import { listOperation, searchText } from '../lists';

export const { properties, prepare } = listOperation('/clients', {
	filters: [searchText('Text found in the name or the email (API filter q)')],
	checks: { q: { kind: 'text', max: 'filter' } },
});
