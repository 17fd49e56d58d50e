// The node's parameters: authentication, resource, each resource's operations and fields, and the
// shared request options.
import type { INodeProperties } from 'n8n-workflow';

import { authenticationDescription, requestOptionsDescription } from '../../shared/descriptions';
import { decimalAmountsProperty } from './amounts';
import * as apiRequest from './apiRequest/ApiRequest.resource';
import * as article from './article/Article.resource';
import * as client from './client/Client.resource';
import * as generalLedger from './generalLedger/GeneralLedger.resource';
import * as invoice from './invoice/Invoice.resource';
import * as settlement from './settlement/Settlement.resource';
import * as stockMovement from './stockMovement/StockMovement.resource';

/** Each resource: its parameters and its operations (router.ts), in the order of the editor. */
export const resources = {
	apiRequest,
	article,
	client,
	generalLedger,
	invoice,
	settlement,
	stockMovement,
};

/**
 * Request Options, in two variants of one parameter name: with the idempotency key where a request
 * may create a record (POST), without it elsewhere; the rate-limit wait cap in both.
 */
const creates = ['create', 'findOrCreate', 'send'];

export const properties: INodeProperties[] = [
	authenticationDescription,
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'API Request',
				value: 'apiRequest',
				description:
					'Expert fallback: call any endpoint of the ERP API, e.g. payroll slips or the audit journal',
			},
			{ name: 'Article', value: 'article' },
			{ name: 'Client', value: 'client' },
			{ name: 'General Ledger', value: 'generalLedger' },
			{ name: 'Invoice', value: 'invoice' },
			{ name: 'Settlement', value: 'settlement' },
			{ name: 'Stock Movement', value: 'stockMovement' },
		],
		default: 'article',
	},
	...Object.values(resources).flatMap((resource) => resource.description),
	decimalAmountsProperty,
	{ ...requestOptionsDescription, displayOptions: { show: { operation: creates } } },
	{
		...requestOptionsDescription,
		options: requestOptionsDescription.options?.filter(
			(option) => !['idempotency', 'customIdempotencyKey'].includes(option.name),
		),
		displayOptions: { hide: { operation: creates } },
	},
];
