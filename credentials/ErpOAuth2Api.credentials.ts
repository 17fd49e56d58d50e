import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import {
	apiConventionProperties,
	rateLimitProperty,
	baseUrlProperty,
	environmentProperty,
	webhookSecretProperty,
} from '../nodes/shared/credentialFields';

/** The API host root (Base URL without /v1), where docs/api-contract.md puts the OAuth2 endpoints. */
const HOST_ROOT =
	'String($self["baseUrl"] ?? "").trim().replace(/\\/+$/, "").replace(/\\/v1$/, "")';

/** The documented least-privilege scopes, asked for when Scopes is left alone or emptied. */
export const DEFAULT_OAUTH2_SCOPES = ['articles:read', 'clients:read', 'factures:read'];

/** An OAuth address: the custom one when the switch is on, else derived from the Base URL. */
const oauthAddress = (custom: string, path: string) =>
	`={{ $self["customOAuthUrls"] === true ? String($self["${custom}"] ?? "").trim() : ${HOST_ROOT} + "${path}" }}`;

export class ErpOAuth2Api implements ICredentialType {
	name = 'erpOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'ERP OAuth2 API';

	icon: Icon = { light: 'file:../icons/erp.svg', dark: 'file:../icons/erp.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-erp/n8n-nodes-erp#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'pkce',
		},
		environmentProperty,
		baseUrlProperty,
		{
			displayName: 'Scopes',
			name: 'scopes',
			type: 'multiOptions',
			options: [
				{
					name: 'Accounting (compta): Read (Sensitive)',
					value: 'compta:read',
					description: 'Sensitive: accounting, such as the general ledger, and VAT events',
				},
				{
					name: 'Accounting (compta): Write (Sensitive)',
					value: 'compta:write',
					description: 'Sensitive: write accounting data',
				},
				{
					name: 'Articles: Read',
					value: 'articles:read',
					description: 'Read articles and stock movements',
				},
				{
					name: 'Articles: Write',
					value: 'articles:write',
					description: 'Create and modify articles',
				},
				{
					name: 'Audit: Read (Restricted)',
					value: 'audit:read',
					description:
						'Very sensitive, restricted access: the audit journal. Only if your ERP account was granted it.',
				},
				{ name: 'Clients: Read', value: 'clients:read', description: 'Read clients' },
				{
					name: 'Clients: Write',
					value: 'clients:write',
					description: 'Create and modify clients',
				},
				{
					name: 'Invoices (factures): Read',
					value: 'factures:read',
					description: 'Read invoices; sale and invoice-paid events',
				},
				{
					name: 'Invoices (factures): Write',
					value: 'factures:write',
					description: 'Issue invoices and record settlements',
				},
				{
					name: 'Payroll (paie): Read (Restricted)',
					value: 'paie:read',
					description:
						'Very sensitive, restricted access: payroll, and the payroll-validated event. Only if your ERP account was granted it.',
				},
			],
			default: [...DEFAULT_OAUTH2_SCOPES],
			description:
				'Permissions to request. Ask only for what your workflows need, and reconnect the credential after changing them.',
			hint: `Left empty, the read-only default is asked for: ${DEFAULT_OAUTH2_SCOPES.join(' ')}`,
		},
		{
			displayName: 'Custom OAuth Addresses',
			name: 'customOAuthUrls',
			type: 'boolean',
			default: false,
			description:
				'Whether your ERP uses other OAuth addresses than the API host followed by /oauth/authorize and /oauth/token (outside /v1)',
		},
		{
			displayName: 'Authorization URL',
			name: 'customAuthUrl',
			type: 'string',
			required: true,
			displayOptions: { show: { customOAuthUrls: [true] } },
			default: '',
			placeholder: 'https://erp.example.com/oauth/authorize',
			description: "The ERP's authorization address",
		},
		{
			displayName: 'Access Token URL',
			name: 'customAccessTokenUrl',
			type: 'string',
			required: true,
			displayOptions: { show: { customOAuthUrls: [true] } },
			default: '',
			placeholder: 'https://erp.example.com/oauth/token',
			description: "The ERP's token address",
		},
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'hidden',
			required: true,
			default: oauthAddress('customAuthUrl', '/oauth/authorize'),
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			required: true,
			default: oauthAddress('customAccessTokenUrl', '/oauth/token'),
		},
		{
			// What is sent: the chosen scopes, or the least-privilege default when none are chosen.
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: `={{ (Array.isArray($self["scopes"]) ? $self["scopes"] : String($self["scopes"] ?? "").split(/[\\s,]+/)).filter(Boolean).join(" ") || "${DEFAULT_OAUTH2_SCOPES.join(' ')}" }}`,
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'header',
		},
		webhookSecretProperty,
		rateLimitProperty,
		...apiConventionProperties,
	];
}
