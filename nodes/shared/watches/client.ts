// New Client: each client created (client.cree).
import { listWatch } from './listWatch';

export const client = listWatch({
	name: 'client',
	label: 'New Client',
	description: 'Each client created (client.cree). Needs clients:read.',
	path: '/clients',
	type: 'client.cree',
	timeField: 'created_at',
});
