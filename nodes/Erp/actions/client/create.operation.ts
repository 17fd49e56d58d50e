import { createOperation } from '../records';
import { clientFields as fields, clientFieldSpecs } from './fields';

export const { properties, prepare, read } = createOperation(
	'/clients',
	[fields.nom, fields.email],
	[fields.adresse, fields.telephone],
	clientFieldSpecs,
);
