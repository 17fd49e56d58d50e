import { clientLocator } from '../common.descriptions';
import { updateOperation } from '../records';
import { clientFields, clientFieldSpecs } from './fields';

export const { properties, prepare } = updateOperation(
	'client',
	clientLocator,
	[clientFields.adresse, clientFields.email, clientFields.nom, clientFields.telephone],
	clientFieldSpecs,
);
