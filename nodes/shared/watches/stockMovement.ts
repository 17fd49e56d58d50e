// New Stock Movement: each entry of the stock movement journal (mouvement.cree).
import { listWatch } from './listWatch';

export const stockMovement = listWatch({
	name: 'stockMovement',
	label: 'New Stock Movement',
	description:
		'Each entry of the stock movement journal: invoices, stock adjustments (mouvement.cree). Needs articles:read.',
	path: '/stock/mouvements',
	type: 'mouvement.cree',
	timeField: 'date',
});
