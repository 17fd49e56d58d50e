import { createOperation } from '../records';
import { articleFields as fields, articleFieldSpecs } from './fields';

export const { properties, prepare, read } = createOperation(
	'/articles',
	[fields.reference, fields.designation, fields.prix_ht, fields.tva],
	[fields.categorie_id, fields.seuil_alerte, fields.stock],
	articleFieldSpecs,
);
