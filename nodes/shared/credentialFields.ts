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
		"The API address of the chosen environment, ending in /v1 (production and sandbox have different addresses). Must use https://, except for a local test server on localhost. TLS 1.3 is required from n8n 2.20 on; older n8n cannot enforce the TLS version, so there the server's own settings decide.",
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

/** The ERP contract's rate limit, when known: read by transport/credentials.ts (0: not set). */
export const rateLimitProperty: INodeProperties = {
	displayName: 'Rate Limit (Requests per Minute)',
	name: 'rateLimitPerMinute',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 0,
	description:
		"Optional: the rate your ERP contract allows for this key, if its answers do not report it. Requests are then spaced to it from the first one. Leave at 0 to start from the API's default (100 per minute) and learn the limit from the answers. Rate-limit headers, when the ERP sends them, always take precedence.",
};

// A field shown only when Custom API Conventions is on (and, whenHmac, for HMAC signatures).
const whenCustom = { show: { customConventions: [true] } };
const whenHmac = { show: { customConventions: [true], signatureScheme: ['bodyHmac'] } };

const text = (
	field: Pick<INodeProperties, 'displayName' | 'name' | 'default' | 'placeholder' | 'description'>,
	displayOptions = whenCustom,
): INodeProperties => {
	const { displayName, name, default: fallback, ...rest } = field; // keys in the usual order
	return { displayName, name, type: 'string', displayOptions, default: fallback, ...rest };
};

/**
 * Custom API Conventions (off by default): what an ERP may name unlike docs/api-contract.md. Each
 * default is the contract's name, written only here (conventions.ts reads it): credentials saved
 * before these fields existed behave as before.
 */
export const apiConventionProperties: INodeProperties[] = [
	{
		displayName: 'Custom API Conventions',
		name: 'customConventions',
		type: 'boolean',
		default: false,
		description:
			'Whether your ERP names list parameters, list answers, webhook signatures or events differently from the defaults (cursor, limit, data, pagination.next_cursor, Standard Webhooks, event type and ID). See the guide "Connecting to your ERP" (docs/connecting.md).',
	},
	text({
		displayName: 'Cursor Query Parameter',
		name: 'cursorParam',
		default: 'cursor',
		placeholder: 'starting_after',
		description: 'The query parameter that asks a list for the page after a cursor',
	}),
	text({
		displayName: 'Page Size Query Parameter',
		name: 'pageSizeParam',
		default: 'limit',
		placeholder: 'per_page',
		description: 'The query parameter that sets how many items a list page holds',
	}),
	text({
		displayName: 'Items Path',
		name: 'itemsPath',
		default: 'data',
		placeholder: 'items',
		description:
			'Where the items are in a list answer: names separated by dots, such as results or page.items',
	}),
	text({
		displayName: 'Next Cursor Path',
		name: 'nextCursorPath',
		default: 'pagination.next_cursor',
		placeholder: 'meta.next',
		description:
			'Where the cursor of the next page is in a list answer: names separated by dots. A missing, empty or null value ends the list.',
	}),
	{
		displayName: 'Webhook Signature',
		name: 'signatureScheme',
		type: 'options',
		displayOptions: whenCustom,
		options: [
			{
				name: 'Standard Webhooks',
				value: 'standardWebhooks',
				description:
					'Headers webhook-ID, webhook-timestamp and webhook-signature (v1, HMAC-SHA256, base64), secret whsec_…',
			},
			{
				name: 'HMAC of the Body in a Header',
				value: 'bodyHmac',
				description:
					'One header holds an HMAC of the raw body keyed with the secret as text, as GitHub, Shopify or WooCommerce send',
			},
		],
		default: 'standardWebhooks',
		description: 'How the ERP signs its webhook deliveries (ERP Trigger only)',
	},
	text(
		{
			displayName: 'Signature Header',
			name: 'signatureHeader',
			default: 'X-Signature',
			placeholder: 'X-Hub-Signature-256',
			description: 'The header that holds the signature',
		},
		whenHmac,
	),
	{
		displayName: 'Signature Algorithm',
		name: 'signatureAlgorithm',
		type: 'options',
		displayOptions: whenHmac,
		options: [
			{ name: 'HMAC-SHA256', value: 'sha256' },
			{ name: 'HMAC-SHA512', value: 'sha512' },
			{ name: 'HMAC-SHA1 (Weak)', value: 'sha1' },
		],
		default: 'sha256',
	},
	{
		displayName:
			'HMAC-SHA1 is weak: choose it only if your ERP cannot sign with SHA-256 or SHA-512',
		name: 'sha1Notice',
		type: 'notice',
		displayOptions: { show: { ...whenHmac.show, signatureAlgorithm: ['sha1'] } },
		default: '',
	},
	{
		displayName: 'Signature Encoding',
		name: 'signatureEncoding',
		type: 'options',
		displayOptions: whenHmac,
		options: [
			{ name: 'Hex', value: 'hex' },
			{ name: 'Base64', value: 'base64' },
		],
		default: 'hex',
	},
	text(
		{
			displayName: 'Signature Prefix',
			name: 'signaturePrefix',
			default: '',
			placeholder: 'sha256=',
			description: 'Text before the signature in the header, if any',
		},
		whenHmac,
	),
	text(
		{
			displayName: 'Timestamp Header',
			name: 'timestampHeader',
			default: '',
			placeholder: 'X-Timestamp',
			description:
				'Optional: a header with the delivery time in Unix seconds, signed together with the body as the timestamp, a dot, then the body. Without it the trigger cannot refuse an old delivery replayed later, only one whose event ID it has already seen.',
		},
		whenHmac,
	),
	text({
		displayName: 'Event Type Path',
		name: 'eventTypePath',
		default: 'type',
		placeholder: 'event',
		description:
			"Where the event's type (such as stock.bas) is in a delivery's body: names separated by dots",
	}),
	text({
		displayName: 'Event Type Header',
		name: 'eventTypeHeader',
		default: '',
		placeholder: 'X-Event-Type',
		description:
			"Optional: a header that holds the event's type; when set, it is read instead of the body",
	}),
	text({
		displayName: 'Event ID Path',
		name: 'eventIdPath',
		default: 'id',
		placeholder: 'payload.event_id',
		description:
			"Where the event's ID is in a delivery's body: names separated by dots. Used against replays when the signature carries no ID.",
	}),
	text({
		displayName: 'Event Data Path',
		name: 'eventDataPath',
		default: 'data',
		placeholder: 'payload',
		description: "Where the event's data is in a delivery's body: names separated by dots",
	}),
	text({
		displayName: 'Event Identity Paths',
		name: 'eventIdentityPaths',
		default: 'vente.creee=id, facture.payee=id, stock.bas=mouvement_id',
		placeholder: 'stock.bas=movement.number',
		description:
			"What makes a delivery and an event the ERP Trigger caught up from a list the same event, so that it runs once: per event type, where the identity is in the event's data (at Event Data Path), as type=path pairs separated by commas (the invoice's ID for sales and paid invoices, the stock movement's ID for low stock)",
	}),
];
