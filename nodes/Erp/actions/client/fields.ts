// The client's writable fields and their checks, alphabetical as the editor shows Update Fields.
import type { INodeProperties } from 'n8n-workflow';

import { fieldSpecs } from '../fields';

export const clientFields = {
	adresse: {
		displayName: 'Address',
		name: 'adresse',
		type: 'string',
		default: '',
		placeholder: 'e.g. 12 rue de la République, 69000 Lyon',
		description: 'Postal address on one line (API field adresse)',
	},
	email: {
		displayName: 'Email',
		name: 'email',
		type: 'string',
		default: '',
		placeholder: 'e.g. name@email.com',
		description: 'Email address of the client, unique in the ERP (API field email)',
	},
	nom: {
		displayName: 'Name',
		name: 'nom',
		type: 'string',
		default: '',
		placeholder: 'e.g. Boulangerie Martin',
		description: 'Name of the client, a company or a person (API field nom)',
	},
	telephone: {
		displayName: 'Phone',
		name: 'telephone',
		type: 'string',
		default: '',
		placeholder: 'e.g. +33 1 40 00 00 00',
		description: 'Phone number (API field telephone)',
	},
} satisfies Record<string, INodeProperties>;

export const clientFieldSpecs = fieldSpecs(Object.values(clientFields), {
	nom: { kind: 'text', max: 'clientName' },
	email: { kind: 'email' },
	telephone: { kind: 'optionalText', max: 'phone' },
	adresse: { kind: 'optionalText', max: 'address' },
});
