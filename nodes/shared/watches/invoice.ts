// New Invoice: each invoice issued, as the ERP Trigger's vente.creee (the invoice as its data).
import { listWatch } from './listWatch';

export const invoice = listWatch({
	name: 'invoice',
	label: 'New Invoice',
	description: 'Each invoice issued (vente.creee, as the ERP Trigger). Needs factures:read.',
	path: '/factures',
	type: 'vente.creee',
	timeField: 'created_at',
});
