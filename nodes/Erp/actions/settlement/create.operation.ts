import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	additionalFields,
	dateField,
	invoiceLocator,
	SETTLEMENT_MODES,
} from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields, fieldSpecs } from '../fields';
import { getLocatorId } from '../locators';

const properties: INodeProperties[] = [
	invoiceLocator,
	{
		displayName: 'Amount (Cents)',
		name: 'montant',
		type: 'number',
		// Empty rather than 0: an amount must be chosen, and 0 is never a valid one.
		default: '',
		required: true,
		placeholder: 'e.g. 12000 for 120.00',
		description: 'Amount received, a whole number of cents, at most what is left to pay',
		hint: 'In cents: 12000 means 120.00. To settle the invoice in full, use what is left to pay, e.g. {{ $json.reste_a_payer }} after an Invoice › Get.',
	},
	{
		displayName: 'Payment Method',
		name: 'mode',
		type: 'options',
		default: 'virement',
		required: true,
		description: 'How the amount was paid (API field mode)',
		options: [
			{ name: 'Bank Transfer (Virement)', value: 'virement' },
			{ name: 'Card (Carte)', value: 'carte' },
			{ name: 'Cash (Especes)', value: 'especes' },
			{ name: 'Cheque', value: 'cheque' },
			{ name: 'Direct Debit (Prelevement)', value: 'prelevement' },
		],
	},
	additionalFields([
		dateField('Date', 'date', 'Date of the payment (API field date); today when empty'),
		{
			displayName: 'Reference',
			name: 'reference',
			type: 'string',
			default: '',
			placeholder: 'e.g. bank transaction ID',
			description:
				'Your reference for the payment (API field reference). It also tells apart two equal payments of the same invoice.',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['settlement'], operation: ['create'] } },
	properties,
);

const bodySpecs = fieldSpecs(properties, {
	montant: { kind: 'integer', min: 1 },
	mode: { kind: 'enum', values: SETTLEMENT_MODES },
	date: { kind: 'date' },
	reference: { kind: 'text', max: 'settlementReference' },
});

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const facture_id = getLocatorId(this, itemIndex, invoiceLocator, 'invoice');
	const body = checkFields(this, itemIndex, bodySpecs, {
		montant: this.getNodeParameter('montant', itemIndex),
		mode: this.getNodeParameter('mode', itemIndex),
		...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
	});
	return async () =>
		await erp.request({ method: 'POST', path: '/reglements', body: { facture_id, ...body } });
}
