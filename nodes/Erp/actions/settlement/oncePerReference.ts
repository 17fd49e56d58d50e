// Settlement › Record: no settlement twice. A settlement whose Reference is already recorded on
// the invoice comes back (`already_recorded: true`) when it is the same payment, and a conflict
// error names it otherwise; an invoice already paid in full gets no further settlement (an error,
// or a skipped item by option). Nothing is posted in any of these cases.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemErp } from '../erp';
import type { Difference } from '../writeOnce';
import { codedError, findWritten, oneAtATime } from '../writeOnce';

/** The options' labels, as the messages name them. */
export const CHECK_OPTION = 'Options › Check for an Existing Settlement';
const PAID_OPTION = 'Options › If the Invoice Is Paid in Full';

/** The values of "If the Invoice Is Paid in Full". */
export const WHEN_PAID = ['error', 'skip'] as const;

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

/** Records the settlement `body` (with `facture_id`) unless the checks find it done already. */
export async function recordOnce(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	body: IDataObject,
	// Look for a settlement with the same Reference on the invoice first; an invoice with nothing
	// left to pay: stop with an error, or skip the item.
	checks: { checkExisting: boolean; whenPaid: (typeof WHEN_PAID)[number] },
): Promise<IDataObject> {
	const factureId = String(body.facture_id);
	const reference = body.reference === undefined ? undefined : String(body.reference);
	// Run again (n8n's Retry On Fail, retries.ts), this write looks first once the invoice has a
	// settlement, as it has after a write that went through: safe to run again.
	const checkFirst = checks.checkExisting && reference !== undefined;
	if (checkFirst) erp.looksFirst();
	return await oneAtATime(ctx, erp, `settlement\n${factureId}`, async () => {
		const invoice = await erp.request({
			method: 'GET',
			path: `/factures/${encodeURIComponent(factureId)}`,
			resource: `Invoice ${factureId}`,
		});
		const named = `${String(invoice.numero ?? factureId)} (${factureId})`;
		// Nothing to look for on an invoice that never had a settlement (unknown: look).
		const unsettled = invoice.montant_regle === 0 && invoice.statut === 'emise';
		if (checkFirst && !unsettled) {
			const found = await findWritten(ctx, erp, {
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
		const paidInFull = invoice.statut === 'payee' || invoice.reste_a_payer === 0;
		if (paidInFull) {
			if (checks.whenPaid === 'skip') {
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
				ctx,
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
}
