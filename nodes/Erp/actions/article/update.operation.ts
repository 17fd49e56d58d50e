import { articleLocator } from '../common.descriptions';
import { updateOperation } from '../records';
import { articleFieldSpecs, articleFields } from './fields';

export const { properties, prepare } = updateOperation(
	'article',
	articleLocator,
	[
		articleFields.categorie_id,
		articleFields.designation,
		articleFields.seuil_alerte,
		articleFields.reference,
		articleFields.stock,
		articleFields.prix_ht,
		articleFields.tva,
	],
	articleFieldSpecs,
);
