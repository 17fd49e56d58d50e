// Node parameters shared by the ERP node and the ERP Trigger, so both use one definition.
// `getRequestSettings` (transport) reads `requestOptions` back into ErpRequestSettings.
import type { INodeProperties } from 'n8n-workflow';

/** The nodes' icon, light and dark. */
export const erpIcon = {
	light: 'file:../../icons/erp.svg',
	dark: 'file:../../icons/erp.dark.svg',
} as const;

/** An "Options" collection of these options. */
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

/** Default cap, in seconds, on any single wait asked for by the API (Retry-After, window reset). */
export const DEFAULT_MAX_WAIT_SECONDS = 60;
/** Highest value the option accepts: one hour (longer waits are a job for a later run). */
export const MAX_WAIT_CAP_SECONDS = 3600;

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

/** The per-node request options: rate-limit wait cap and idempotency key. */
export const requestOptionsDescription: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add Request Option',
	default: {},
	options: [
		{
			displayName: 'Idempotency Key',
			name: 'idempotency',
			type: 'options',
			options: [
				{
					name: 'Automatic',
					value: 'auto',
					description:
						'Derived from the workflow, the node and the request data, so a retry or a re-run of a failed execution cannot create a duplicate',
				},
				{
					name: 'Custom',
					value: 'custom',
					description: 'Your own key, for example the e-commerce order number',
				},
				{
					name: 'Off',
					value: 'off',
					description: 'Send no key: every request creates a new record',
				},
			],
			default: 'auto',
			description: 'The Idempotency-Key sent with create requests (POST)',
			hint: "With a key, the ERP treats two identical create requests within 24 hours as one and returns the first result. Two real, identical payments must differ in some field (a settlement's reference, for example) or use Off.",
		},
		{
			displayName: 'Custom Idempotency Key',
			name: 'customIdempotencyKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.order_number }}',
			description:
				'The key to send, usually from an expression: a value that identifies this one business operation, such as an order number. Up to 255 printable ASCII characters.',
			displayOptions: { show: { idempotency: ['custom'] } },
		},
		{
			displayName: 'Max Rate-Limit Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_WAIT_CAP_SECONDS },
			default: DEFAULT_MAX_WAIT_SECONDS,
			description:
				'Longest one request may wait for the ERP\'s rate limit, in all (its turn and every wait the ERP asks for). Past it, the node fails with a clear error instead of waiting. An exhausted daily quota always fails at once.',
		},
	],
};
