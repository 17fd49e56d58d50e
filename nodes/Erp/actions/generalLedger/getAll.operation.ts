import { listOperation } from '../lists';

export const { properties, prepare } = listOperation('/comptabilite/grand-livre', {
	filters: [
		{
			displayName: 'Account',
			name: 'compte',
			type: 'string',
			default: '',
			placeholder: 'e.g. 411',
			description:
				'Only the entries of this account number, e.g. 411 clients, 512 bank, 706 sales, 44571 VAT (API filter compte)',
		},
	],
	checks: { compte: { kind: 'text', max: 'filter' } },
	dated: true,
});
