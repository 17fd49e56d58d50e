// Settlement › Record: no settlement twice. One whose Reference is already on the invoice comes
// back (`already_recorded: true`) if it is the same payment, else a conflict error names it; an
// invoice paid in full gets none (an error, or a skipped item by option). Nothing is posted then.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../../shared/descriptions';
import { labelOf, toBoolean, toEnum } from '../../../shared/validation';
import { additionalFields, dateField, invoiceLocator } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields, fieldSpecs, source } from '../fields';
import { getLocatorId } from '../locators';
import type { Difference } from '../writeOnce';
import { codedError, findWritten, oneAtATime } from '../writeOnce';

const CHECK_OPTION = 'Options › Check for an Existing Settlement';
const PAID_OPTION = 'Options › If the Invoice Is Paid in Full';

/** The values of "If the Invoice Is Paid in Full" and of Payment Method (the API's order). */
const WHEN_PAID = ['error', 'skip'] as const;
const SETTLEMENT_MODES = ['virement', 'carte', 'cheque', 'especes', 'prelevement'] as const;

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

/** What differs between the settlement found and the one asked for (amount, method, a given date). */
function settlementDifferences(found: IDataObject, wanted: IDataObject): Difference[] {
	const differences: Difference[] = [];
	for (const [field, label] of [
		['montant', 'amount'],
		['mode', 'payment method'],
		['date', 'date'],
	]) {
		if (wanted[field] === undefined || String(found[field]) === String(wanted[field])) continue;
		differences.push({
			field,
			message: `${label} ${String(found[field])} on the settlement, ${String(wanted[field])} here`,
		});
	}
	return differences;
}

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const factureId = getLocatorId(this, itemIndex, invoiceLocator, 'invoice');
	const body: IDataObject = {
		facture_id: factureId,
		...checkFields(this, itemIndex, bodySpecs, {
			montant: this.getNodeParameter('montant', itemIndex),
			mode: this.getNodeParameter('mode', itemIndex),
			...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
		}),
	};
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const label = (name: string) => source(this, labelOf(properties, 'options', name), itemIndex);
	const { checkExisting: check } = options;
	const checkExisting = check === undefined || toBoolean(label('checkExisting'), check);
	const whenPaid = toEnum(label('whenPaid'), options.whenPaid ?? 'error', WHEN_PAID);
	const reference = body.reference === undefined ? undefined : String(body.reference);
	// Run again (n8n's Retry On Fail, retries.ts), this write looks first once the invoice has a
	// settlement, as it has after a write that went through: safe to run again.
	const checkFirst = checkExisting && reference !== undefined;
	return async () => {
		if (checkFirst) erp.looksFirst();
		return await oneAtATime(this, erp, `settlement\n${factureId}`, async () => {
			const invoice = await erp.request({
				method: 'GET',
				path: `/factures/${encodeURIComponent(factureId)}`,
				resource: `Invoice ${factureId}`,
			});
			const named = `${String(invoice.numero ?? factureId)} (${factureId})`;
			// Nothing to look for on an invoice that never had a settlement (unknown: look).
			const unsettled = invoice.montant_regle === 0 && invoice.statut === 'emise';
			if (checkFirst && !unsettled) {
				const found = await findWritten(this, erp, {
					path: '/reglements',
					qs: { facture_id: factureId, reference },
					matches: (r) => String(r.facture_id) === factureId && r.reference === reference,
					list: 'settlement list',
					question: `the settlement "${reference}" was already recorded on invoice ${named}`,
					twice: 'a second settlement of the same payment',
					option: CHECK_OPTION,
					nothing: 'Nothing was recorded.',
					differences: (settlement) => settlementDifferences(settlement, body),
					conflict: (settlement) => ({
						found: `Settlement ${String(settlement.id)} with Reference "${reference}" is already recorded on invoice ${named}, for another payment`,
						description: `A Reference names one payment. Check the settlements of invoice ${named} in the ERP, or give this payment its own reference. To record it anyway, turn off ${CHECK_OPTION}.`,
						record: {
							field: 'reference',
							message: `Already recorded as settlement ${String(settlement.id)} on invoice ${named}`,
							id: settlement.id,
							facture_id: factureId,
						},
					}),
				});
				if (found) return { ...found, already_recorded: true };
			}
			if (invoice.statut === 'payee' || invoice.reste_a_payer === 0) {
				if (whenPaid === 'skip') {
					return {
						skipped: true,
						reason: 'invoice_already_paid',
						facture_id: factureId,
						numero: invoice.numero,
						statut: invoice.statut,
						montant_regle: invoice.montant_regle,
						reste_a_payer: invoice.reste_a_payer,
					};
				}
				throw codedError(
					this,
					erp.itemIndex,
					'invoice_already_paid',
					`Invoice ${named} is already paid in full: nothing was recorded`,
					`The invoice has nothing left to pay, so this payment would be money recorded twice. To let such items go on without an error (marked "skipped"), set ${PAID_OPTION} to Skip the Item.`,
					[{ field: 'facture_id', message: `Invoice ${named} has nothing left to pay` }],
				);
			}
			const created = await erp.request({ method: 'POST', path: '/reglements', body });
			return checkFirst ? { ...created, already_recorded: false } : created;
		});
	};
}
