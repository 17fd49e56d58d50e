// Invoice › Issue with an External Reference: at most one invoice per reference. The invoice
// already issued with it comes back (`already_issued: true`) when it is the same order, and a
// conflict error names it when the order changed; nothing is posted in either case.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemErp } from '../erp';
import type { Difference, Lookup } from '../writeOnce';
import { findWritten, oneAtATime } from '../writeOnce';

const CHECK_OPTION = 'Options › Check for an Existing Invoice';

/** An invoice's lines as compared: article, quantity and the unit price when one is given. */
const linesOf = (body: IDataObject) =>
	((body.lignes as IDataObject[] | undefined) ?? []).map((line) => ({
		article_id: String(line.article_id),
		quantite: Number(line.quantite),
		prix_ht: line.prix_ht === undefined || line.prix_ht === null ? undefined : Number(line.prix_ht),
	}));

/** Quantity per article of an invoice, in first-seen order. */
function quantities(body: IDataObject): Map<string, number> {
	const total = new Map<string, number>();
	for (const line of linesOf(body))
		total.set(line.article_id, (total.get(line.article_id) ?? 0) + line.quantite);
	return total;
}

/**
 * What differs between the invoice found and the one asked for: client, quantity per article, and
 * a unit price or the date only when the order gives one (one left to the ERP is not compared).
 */
function invoiceDifferences(found: IDataObject, wanted: IDataObject): Difference[] {
	const differences: Difference[] = [];
	const differ = (field: string, message: string) => differences.push({ field, message });
	const [client, date] = [String(found.client_id), String(found.date)];
	if (client !== String(wanted.client_id)) {
		differ('client_id', `client ${client} on the invoice, ${String(wanted.client_id)} here`);
	}
	const foundLines = linesOf(found);
	const name = (articleId: string) => {
		const line = ((found.lignes as IDataObject[] | undefined) ?? []).find(
			(l) => String(l.article_id) === articleId,
		);
		return typeof line?.reference === 'string' ? `${line.reference} (${articleId})` : articleId;
	};
	const had = quantities(found);
	const asked = quantities(wanted);
	for (const articleId of new Set([...had.keys(), ...asked.keys()])) {
		const [a, b] = [had.get(articleId) ?? 0, asked.get(articleId) ?? 0];
		if (a !== b) differ('lignes', `quantity of ${name(articleId)}: ${a} on the invoice, ${b} here`);
	}
	for (const { article_id: id, prix_ht: price } of linesOf(wanted)) {
		if (price === undefined || !had.has(id)) continue;
		const prices = foundLines.filter((l) => l.article_id === id).map((l) => l.prix_ht);
		if (!prices.includes(price)) {
			differ(
				'lignes',
				`unit price of ${name(id)}: ${prices.join(', ')} on the invoice, ${price} here`,
			);
		}
	}
	if (wanted.date !== undefined && date !== String(wanted.date)) {
		differ('date', `date ${date} on the invoice, ${String(wanted.date)} here`);
	}
	return differences;
}

/** Issues the invoice `body` (which has `reference_externe`) once per reference (see header). */
export async function issueOnce(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	body: IDataObject,
): Promise<IDataObject> {
	const reference = String(body.reference_externe);
	const named = (found: IDataObject) => `${String(found.numero)} (${String(found.id)})`;
	const lookup: Lookup = {
		path: '/factures',
		qs: { reference_externe: reference },
		matches: (invoice) => invoice.reference_externe === reference,
		list: 'invoice list',
		question: `an invoice with External Reference "${reference}" was already issued`,
		twice: 'a second invoice for the same order',
		option: CHECK_OPTION,
		nothing: 'Nothing was issued.',
		differences: (found) => invoiceDifferences(found, body),
		conflict: (found) => ({
			found: `Invoice ${named(found)} already has External Reference "${reference}", for another order`,
			description: `An External Reference names one order, and this one changed since its invoice was issued (or the reference was used for another order). Correct invoice ${named(found)} in the ERP, or give this order its own reference. To issue a second invoice anyway, turn off ${CHECK_OPTION}.`,
			record: {
				field: 'reference_externe',
				message: `Already used by invoice ${named(found)}`,
				id: found.id,
				numero: found.numero,
			},
		}),
	};
	// Run again (n8n's Retry On Fail, retries.ts), this write looks first: safe to run again.
	erp.looksFirst();
	return await oneAtATime(ctx, erp, `invoice\n${reference}`, async () => {
		const found = await findWritten(ctx, erp, lookup);
		if (found) return { ...found, already_issued: true };
		const created = await erp.request({ method: 'POST', path: '/factures', body });
		return { ...created, already_issued: false };
	});
}
