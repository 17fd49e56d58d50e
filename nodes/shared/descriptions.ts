// Node parameters the ERP nodes share. Request Options lives with the transport that reads it.
import type { INodeProperties } from 'n8n-workflow';

export { requestOptionsDescription } from './transport';

export const erpIcon = {
	light: 'file:../../icons/erp.svg',
	dark: 'file:../../icons/erp.dark.svg',
} as const;

export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options,
	};
}

/** The `authentication` parameter: its values pick the credential type (see the transport). */
export const authenticationDescription: INodeProperties = {
	displayName: 'Authentication',
	name: 'authentication',
	type: 'options',
	options: [
		{
			name: 'API Key',
			value: 'apiKey',
			description: 'A key created in the ERP settings (API > Keys), acting for the account itself',
		},
		{
			name: 'OAuth2',
			value: 'oAuth2',
			description: 'Sign in to the ERP as a user (Authorization Code with PKCE)',
		},
	],
	default: 'apiKey',
};

/** Credentials entries for a node description: one per authentication choice. */
export const erpCredentialsDescription = [
	{ name: 'erpApi', required: true, displayOptions: { show: { authentication: ['apiKey'] } } },
	{
		name: 'erpOAuth2Api',
		required: true,
		displayOptions: { show: { authentication: ['oAuth2'] } },
	},
];
