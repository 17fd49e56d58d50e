// The node's parameters: authentication, the resources and their operations, request options.
import type { INodeProperties } from 'n8n-workflow';

import { authenticationDescription, requestOptionsDescription } from '../../shared/descriptions';
import { decimalAmountsProperty } from './amounts';
import * as apiRequestSend from './apiRequest/send.operation';
import * as articleCreate from './article/create.operation';
import * as articleFindOrCreate from './article/findOrCreate.operation';
import * as articleGetAll from './article/getAll.operation';
import * as clientCreate from './client/create.operation';
import * as clientFindOrCreate from './client/findOrCreate.operation';
import * as clientGetAll from './client/getAll.operation';
import * as generalLedgerGetAll from './generalLedger/getAll.operation';
import * as invoiceCreate from './invoice/create.operation';
import * as invoiceGetAll from './invoice/getAll.operation';
import * as settlementCreate from './settlement/create.operation';
import * as stockMovementGetAll from './stockMovement/getAll.operation';
import { articleFields, articleFieldSpecs } from './article/fields';
import { clientFields, clientFieldSpecs } from './client/fields';
import { articleLocator, clientLocator, invoiceLocator, resource } from './common.descriptions';
import { getOperation, updateOperation } from './records';

/** Each resource, in the editor's order: its Operations, their parameters and `prepare` (router.ts). */
export const resources = {
	apiRequest: resource('apiRequest', 'send', {
		send: {
			name: 'Send',
			description:
				"Expert fallback: call any endpoint of the ERP API (e.g. GET /paie/bulletins for payroll slips, GET /audit/journal) with the node's pacing, retries, idempotency and errors. Use another resource when one fits.",
			action: 'Send an API request',
			operation: apiRequestSend,
		},
	}),
	article: resource('article', 'get', {
		create: {
			name: 'Create',
			description: 'Create an article (product) with its reference, label, price and VAT rate',
			action: 'Create an article',
			operation: articleCreate,
		},
		findOrCreate: {
			name: 'Find or Create',
			description:
				"Find an article by its exact reference, or create it when none exists (optionally update the found one); the output's _action is found, created or updated",
			action: 'Find or create an article',
			operation: articleFindOrCreate,
		},
		get: {
			name: 'Get',
			description: 'Get one article with its price, VAT rate, stock and category',
			action: 'Get an article',
			operation: getOperation('article', articleLocator),
		},
		getAll: {
			name: 'Get Many',
			description: 'List articles, filtered by reference, category or search text',
			action: 'Get many articles by search text or reference or category',
			operation: articleGetAll,
		},
		update: {
			name: 'Update',
			description: 'Change fields of an article; changing the stock records an adjustment movement',
			action: 'Update an article',
			operation: updateOperation('article', articleLocator, articleFields, articleFieldSpecs),
		},
	}),
	client: resource('client', 'get', {
		create: {
			name: 'Create',
			description: 'Create a client (customer) with a name and a unique email',
			action: 'Create a client',
			operation: clientCreate,
		},
		findOrCreate: {
			name: 'Find or Create',
			description:
				"Find a client by email, or create it when none exists; the output's _action is found or created. Use before issuing an invoice for an order.",
			action: 'Find or create a client',
			operation: clientFindOrCreate,
		},
		get: {
			name: 'Get',
			description: 'Get one client with name, email, phone and address',
			action: 'Get a client',
			operation: getOperation('client', clientLocator),
		},
		getAll: {
			name: 'Get Many',
			description: 'List clients, optionally filtered by text in the name or email',
			action: 'Get many clients by name or email search',
			operation: clientGetAll,
		},
		update: {
			name: 'Update',
			description: 'Change the name, email, phone or address of a client',
			action: 'Update a client',
			operation: updateOperation('client', clientLocator, clientFields, clientFieldSpecs),
		},
	}),
	generalLedger: resource('generalLedger', 'getAll', {
		getAll: {
			name: 'Get Many',
			description:
				'List general ledger entries (debit and credit per account, in cents), filtered by date range and account',
			action: 'Get many ledger entries by date range or account',
			operation: generalLedgerGetAll,
		},
	}),
	invoice: resource('invoice', 'get', {
		create: {
			name: 'Issue',
			description:
				'Issue an invoice for a client from article lines; takes the quantities out of stock and posts it to the ledger',
			action: 'Issue an invoice',
			operation: invoiceCreate,
		},
		get: {
			name: 'Get',
			description:
				'Get one invoice with its lines, totals, status, amount paid and amount left to pay',
			action: 'Get an invoice',
			operation: getOperation('invoice', invoiceLocator),
		},
		getAll: {
			name: 'Get Many',
			description: 'List invoices, filtered by client or status (issued, partially paid, paid)',
			action: 'Get many invoices by client or status',
			operation: invoiceGetAll,
		},
	}),
	settlement: resource('settlement', 'create', {
		create: {
			name: 'Record',
			description:
				'Record a payment received for an invoice; the invoice becomes paid when nothing is left to pay',
			action: 'Record a settlement',
			operation: settlementCreate,
		},
	}),
	stockMovement: resource('stockMovement', 'getAll', {
		getAll: {
			name: 'Get Many',
			description:
				'List stock movements (ins, outs from invoices, adjustments), filtered by article and date range',
			action: 'Get many stock movements by article or date range',
			operation: stockMovementGetAll,
		},
	}),
};

// Request Options, twice under one name: with the idempotency key for the operations that may
// create a record (POST), without it elsewhere.
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
