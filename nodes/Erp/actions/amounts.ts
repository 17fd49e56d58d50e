// "Add Decimal Amounts": the API gives money in whole cents and the VAT rate in basis points; for
// messages and sheets, the option adds each in currency units right after the API's integer (kept).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { toBoolean } from '../../shared/validation';
import type { Prepared } from './erp';
import { isRecord, source } from './fields';

/** API fields that hold money in cents: on articles, invoices and their lines; on settlements and ledger entries. */
const MONEY_FIELDS = new Set([
	...['prix_ht', 'total_ht', 'total_tva', 'total_ttc', 'montant_regle', 'reste_a_payer'],
	...['montant', 'debit', 'credit'],
]);

export const decimalAmountsProperty: INodeProperties = {
	displayName: 'Add Decimal Amounts',
	name: 'decimalAmounts',
	type: 'boolean',
	default: false,
	displayOptions: {
		show: { resource: ['article', 'generalLedger', 'invoice', 'settlement'] },
	},
	description:
		"Whether to add each amount in currency units next to the API's whole cents, for messages and sheets: prix_ht_decimal 969 next to prix_ht 96900, total_ttc_decimal 2257.2 next to total_ttc 225720, and the VAT rate in percent, tva_percent 20 next to tva 2000",
};

/** A copy of `record` with `<field>_decimal` (cents / 100) after each money field and `tva_percent` after `tva`, in nested records and lines too. */
function addDecimalAmounts(record: IDataObject): IDataObject {
	const result: IDataObject = {};
	const withDecimals = (value: unknown) => (isRecord(value) ? addDecimalAmounts(value) : value);
	for (const [key, value] of Object.entries(record)) {
		result[key] = (
			Array.isArray(value) ? value.map(withDecimals) : withDecimals(value)
		) as IDataObject[string];
		if (typeof value !== 'number' || !Number.isSafeInteger(value)) continue;
		if (MONEY_FIELDS.has(key)) result[`${key}_decimal`] = value / 100;
		else if (key === 'tva') result.tva_percent = value / 100;
	}
	return result;
}

/** The item's request step, its records given decimal amounts when the option is on (checked before any request). */
export function withDecimalAmounts(ctx: IExecuteFunctions, itemIndex: number, step: Prepared) {
	const on = toBoolean(
		source(ctx, decimalAmountsProperty.displayName, itemIndex),
		ctx.getNodeParameter(decimalAmountsProperty.name, itemIndex, false),
	);
	if (!on) return step;
	return async () => {
		const result = await step();
		return Array.isArray(result) ? result.map(addDecimalAmounts) : addDecimalAmounts(result);
	};
}
