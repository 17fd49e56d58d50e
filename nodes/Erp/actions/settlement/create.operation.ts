import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	additionalFields,
	dateField,
	invoiceLocator,
	SETTLEMENT_MODES,
} from '../common.descriptions';
import { optionsCollection } from '../../../shared/descriptions';
import { labelOf, toBoolean, toEnum } from '../../../shared/validation';
import type { ItemErp, Prepared } from '../erp';
import { checkFields, fieldSpecs, source } from '../fields';
import { getLocatorId } from '../locators';
import { recordOnce, WHEN_PAID } from './oncePerReference';

export const properties: INodeProperties[] = [
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
	{
		...additionalFields([
			dateField('Date', 'date', 'Date of the payment (API field date); today when empty'),
			{
				displayName: 'Reference',
				name: 'reference',
				type: 'string',
				default: '',
				placeholder: 'e.g. bank transaction ID',
				description: 'Your reference for the payment (API field reference)',
				hint: 'Set it to the payment or order number: the node then records a payment at most once per invoice, even on a retry, a re-run or a changed order, whatever the ERP does with Idempotency-Key. Two real payments of the same invoice need two references.',
			},
		]),
		hint: 'Add Reference (the payment or order number) so that a payment is never recorded twice, even where the ERP ignores Idempotency-Key',
	},
	optionsCollection([
		{
			displayName: 'Check for an Existing Settlement',
			name: 'checkExisting',
			type: 'boolean',
			default: true,
			description:
				'Whether to look for a settlement with the same Reference on the invoice before recording: the same payment gives that settlement back ("already_recorded": true), another one an error naming it. Off: only the ERP\'s Idempotency-Key guards against recording it twice.',
		},
		{
			displayName: 'If the Invoice Is Paid in Full',
			name: 'whenPaid',
			type: 'options',
			default: 'error',
			description:
				'What to do when the invoice has nothing left to pay: nothing is recorded either way',
			options: [
				{
					name: 'Stop With an Error',
					value: 'error',
					description: 'The item fails with the code invoice_already_paid',
				},
				{
					name: 'Skip the Item',
					value: 'skip',
					description: 'The item goes on with "skipped": true and the invoice\'s state',
				},
			],
		},
	]),
];

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
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const label = (name: string) => source(this, labelOf(properties, 'options', name), itemIndex);
	const { checkExisting: check } = options;
	const checkExisting = check === undefined || toBoolean(label('checkExisting'), check);
	const whenPaid = toEnum(label('whenPaid'), options.whenPaid ?? 'error', WHEN_PAID);
	const checks = { checkExisting, whenPaid };
	return async () => await recordOnce(this, erp, { facture_id, ...body }, checks);
}
