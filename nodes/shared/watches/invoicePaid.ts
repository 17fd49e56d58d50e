// Invoice Paid (the ERP Trigger's facture.payee). The list has no payment date, so ids of invoices
// seen unpaid are kept (`open`). A poll reads the new invoices (one already paid is reported now),
// then, while some are open, both unpaid lists whole; an open invoice in neither is read, reported
// if `payee`. An id leaves `open` only in a poll reporting it (n8n saves those) or once it is gone.
import type { IDataObject } from 'n8n-workflow';

import type { ErpContext } from '../transport';
import { readAfter, readOne } from './journal';
import type { Watch } from './types';
import { eventItem } from './types';

const TYPE = 'facture.payee';
const UNPAID = ['emise', 'partiellement_payee'];

const paidItem = (invoice: IDataObject, seenAt: string) =>
	eventItem(TYPE, invoice.id, seenAt, invoice);

function unpaidIds(invoices: IDataObject[]): string[] {
	return invoices
		.filter((invoice) => invoice.statut !== 'payee' && typeof invoice.id === 'string')
		.map((invoice) => invoice.id as string);
}

/** The items of this poll, in id order, and the state after it: the ids still open. */
async function paidInvoiceItems(
	context: ErpContext,
	newInvoices: IDataObject[],
	_options: undefined,
	state: IDataObject,
) {
	const seenAt = new Date().toISOString();
	const paid = newInvoices.filter((invoice) => invoice.statut === 'payee');
	const open = Array.isArray(state.open) ? (state.open as string[]) : [];
	const stillOpen = new Set([...open, ...unpaidIds(newInvoices)]);
	if (stillOpen.size > 0) {
		const unpaidNow = new Set<string>();
		for (const statut of UNPAID) {
			const read = await readAfter(context, '/factures', { statut });
			for (const invoice of read.items)
				if (typeof invoice.id === 'string') unpaidNow.add(invoice.id);
		}
		for (const id of [...stillOpen].sort()) {
			if (unpaidNow.has(id)) continue;
			const invoice = await readOne(context, '/factures', id, 'Invoice');
			if (invoice?.statut === 'payee') paid.push(invoice);
			if (invoice === undefined || invoice.statut === 'payee') stillOpen.delete(id);
		}
	}
	paid.sort((a, b) => String(a.id).localeCompare(String(b.id)));
	return {
		items: paid.map((invoice) => paidItem(invoice, seenAt)),
		state: { open: [...stillOpen].sort() },
	};
}

export const invoicePaid: Watch<undefined> = {
	name: 'invoicePaid',
	label: 'Invoice Paid',
	description: `An invoice whose status became payee (${TYPE}, as the ERP Trigger). Needs factures:read.`,
	path: '/factures',
	type: TYPE,
	timeField: 'created_at',
	properties: [
		{
			displayName:
				'While invoices are unpaid, each poll also reads the unpaid invoice lists whole: 2 × ⌈U / 100⌉ requests for U unpaid invoices, plus one per invoice paid.',
			name: 'invoicePaidNotice',
			type: 'notice',
			default: '',
		},
	],
	stateKeys: ['open'],
	readOptions: () => undefined,
	start: (invoices) => ({ open: unpaidIds(invoices) }),
	items: paidInvoiceItems,
	latest: async (_context, invoices) => {
		const [last] = invoices.filter((invoice) => invoice.statut === 'payee').slice(-1);
		return last === undefined ? undefined : paidItem(last, new Date().toISOString());
	},
};
