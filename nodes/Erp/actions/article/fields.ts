// The article's writable fields and their checks, alphabetical as the editor shows Update Fields.
import type { INodeProperties } from 'n8n-workflow';

import type { FieldCheck } from '../fields';
import { fieldSpecs } from '../fields';

export const articleFields = {
	categorie_id: {
		displayName: 'Category Name or ID',
		name: 'categorie_id',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getCategories' },
		default: '',
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	designation: {
		displayName: 'Designation',
		name: 'designation',
		type: 'string',
		default: '',
		placeholder: 'e.g. Office chair, black',
		description: 'Label of the article (API field designation)',
	},
	seuil_alerte: {
		displayName: 'Low-Stock Threshold',
		name: 'seuil_alerte',
		type: 'number',
		default: 0,
		description:
			'A stock.bas event is sent when the stock falls to this level or below (API field seuil_alerte)',
	},
	reference: {
		displayName: 'Reference',
		name: 'reference',
		type: 'string',
		default: '',
		placeholder: 'e.g. REF-000123',
		description: 'Business reference code of the article, unique in the ERP (API field reference)',
	},
	stock: {
		displayName: 'Stock',
		name: 'stock',
		type: 'number',
		default: 0,
		description:
			'Quantity in stock, a whole number (API field stock). Changing it records an adjustment movement.',
	},
	prix_ht: {
		displayName: 'Unit Price (Cents)',
		name: 'prix_ht',
		type: 'number',
		default: 0,
		description: 'Price excluding tax, as a whole number of cents',
		hint: 'API field prix_ht, in cents: 1250 = 12.50. Decimals are refused, never rounded.',
	},
	tva: {
		displayName: 'VAT Rate (Basis Points)',
		name: 'tva',
		type: 'number',
		default: 2000,
		description: 'VAT rate in basis points, a whole number from 0 to 10000',
		hint: 'API field tva: 2000 = 20 %, 550 = 5.5 %',
	},
} satisfies Record<string, INodeProperties>;

export const articleChecks = {
	reference: { kind: 'text', max: 'articleReference' },
	designation: { kind: 'text', max: 'designation' },
	prix_ht: { kind: 'integer', min: 0 },
	tva: { kind: 'integer', min: 0, max: 10000 },
	stock: { kind: 'integer', min: 0 },
	seuil_alerte: { kind: 'integer', min: 0 },
	categorie_id: { kind: 'text', max: 'id' },
} satisfies Record<string, FieldCheck>;

export const articleFieldSpecs = fieldSpecs(Object.values(articleFields), articleChecks);
