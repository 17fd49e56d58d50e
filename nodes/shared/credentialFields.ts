// Credential fields both ERP credential types share (names are stable: saved credentials use them).
import type { INodeProperties } from 'n8n-workflow';

export const environmentProperty: INodeProperties = {
	displayName: 'Environment',
	name: 'environment',
	type: 'options',
	options: [
		{ name: 'Production', value: 'production', description: 'Live company data' },
		{ name: 'Sandbox', value: 'sandbox', description: 'Test data, renewed every night' },
	],
	default: 'production',
	description:
		'Which ERP environment this credential is for. Requests are refused before they leave if the key or address does not match it.',
};

export const baseUrlProperty: INodeProperties = {
	displayName: 'Base URL',
	name: 'baseUrl',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'https://erp.example.com/v1',
	description:
		'The API address of the chosen environment, ending in /v1 (production and sandbox have different addresses). Must use https://, except for a local test server on localhost. TLS 1.3 is required from n8n 2.20 on; older n8n cannot enforce the TLS version, so there the server\'s own settings decide.',
};

export const webhookSecretProperty: INodeProperties = {
	displayName: 'Webhook Secret',
	name: 'webhookSecret',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	placeholder: 'whsec_...',
	description:
		'Only for the ERP Trigger in manual registration mode: the signing secret the ERP shows for the webhook you created in its settings',
};
