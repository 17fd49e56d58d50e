// One poll of the ERP Polling Trigger: what is new since the saved position, as items.
//
// The node's static data holds `watch` (what the position belongs to), `position` (the id of the
// last record read), `since` (Start From a date) and, for Invoice Paid, `open`. n8n 2.41 saves it
// after the poll that runs at activation and start, and after a poll that emits items, not after
// a poll that emits nothing. Every watch is built so that losing a quiet poll's change is harmless:
// the next poll after a restart reads the same records again and finds nothing to emit in them.
// With n8n 2.41's durable poll cursors it is the other way round: a quiet scheduled poll is saved,
// the poll at publication is not; durableStart.ts saves a new start there.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { erpErrorToJson } from '../shared/transport';
import { keepStart } from './durableStart';
import { readAfter } from './journal';
import type { JournalRead } from './journal';
import { lowStockItems } from './lowStock';
import type { Threshold } from './lowStock';
import { paidInvoiceItems, unpaidIds } from './invoicePaid';
import type { PollSettings } from './settings';
import { eventItem, LISTS } from './watches';

const STATE_KEYS = ['watch', 'position', 'since', 'open'];

/**
 * The trigger nodes whose scheduled poll is running in this n8n process. n8n starts the next poll
 * on schedule even while the previous one still runs (a long catch-up, or waits for the rate
 * limit): that poll does nothing, so two polls never read from the same position. Polls run in
 * one process (n8n's main, the leader in multi-main).
 */
const running = new Set<string>();

/** Runs `poll` unless this node's previous poll is still running; then gives undefined. */
export async function alone<T>(
	context: IPollFunctions,
	poll: () => Promise<T>,
): Promise<T | undefined> {
	const key = `${context.getWorkflow().id ?? ''}/${context.getNode().id}`;
	if (running.has(key)) {
		context.logger.info(
			'ERP Polling Trigger: the previous poll is still running; this one is skipped',
		);
		return undefined;
	}
	running.add(key);
	try {
		return await poll();
	} finally {
		running.delete(key);
	}
}

/** The saved position, refused by the ERP: said plainly, never skipped over in silence. */
async function fromPosition(
	context: IPollFunctions,
	path: string,
	position: string | undefined,
	maxPages: number,
): Promise<JournalRead> {
	const outcome = await readAfter(context, path, {}, position, maxPages).then(
		(read) => ({ ok: true as const, read }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (outcome.ok) return outcome.read;
	const facts = erpErrorToJson(outcome.error);
	const aboutCursor = JSON.stringify(facts.details ?? '').includes('cursor');
	if (position === undefined || String(facts.httpCode) !== '400' || !aboutCursor) {
		throw outcome.error;
	}
	throw new NodeOperationError(
		context.getNode(),
		`The ERP no longer accepts this trigger's saved position (${position} in ${path})`,
		{
			description:
				'Nothing after it was skipped. To start again from now, add a new ERP Polling Trigger node in place of this one and publish the workflow.',
		},
	);
}

function newerThan(records: IDataObject[], field: string, since: string | undefined) {
	if (since === undefined) return records;
	return records.filter((record) => {
		const time = typeof record[field] === 'string' ? Date.parse(record[field]) : NaN;
		return Number.isNaN(time) || time >= Date.parse(since);
	});
}

async function itemsOf(
	context: IPollFunctions,
	settings: PollSettings,
	records: IDataObject[],
	state: IDataObject,
): Promise<IDataObject[]> {
	const { watch } = settings;
	const list = LISTS[watch];
	if (watch === 'lowStock') return await lowStockItems(context, records, settings.threshold);
	if (watch === 'invoicePaid') {
		const open = Array.isArray(state.open) ? (state.open as string[]) : [];
		const result = await paidInvoiceItems(context, records, open);
		state.open = result.open;
		return result.items;
	}
	return records.map((record) => eventItem(list.type, record, record[list.timeField]));
}

/** A scheduled poll (activation, start, or the schedule): the new items, the state moved on. */
export async function scheduledPoll(
	context: IPollFunctions,
	settings: PollSettings,
): Promise<IDataObject[]> {
	const state = context.getWorkflowStaticData('node');
	const list = LISTS[settings.watch];
	if (state.watch !== settings.watch) {
		// First activation, or the node now watches something else: a new start. The state changes
		// only once the start is known (a failed read leaves it as it was, to start again).
		const end =
			settings.startFrom === 'now'
				? await readAfter(context, list.path, {}, undefined, undefined)
				: undefined;
		for (const key of STATE_KEYS) delete state[key];
		state.watch = settings.watch;
		if (end !== undefined) {
			if (end.position !== undefined) state.position = end.position;
			if (settings.watch === 'invoicePaid') state.open = unpaidIds(end.items);
			await keepStart(context);
			return [];
		}
		if (settings.since !== undefined) state.since = settings.since;
	}
	const position = typeof state.position === 'string' ? state.position : undefined;
	const since = typeof state.since === 'string' ? state.since : undefined;
	const read = await fromPosition(context, list.path, position, settings.maxPages);
	const items = await itemsOf(
		context,
		settings,
		newerThan(read.items, list.timeField, since),
		state,
	);
	if (read.position !== undefined) state.position = read.position;
	if (read.more) {
		context.logger.info(
			`ERP Polling Trigger: read ${read.requests} pages of ${list.path} (Max Pages per Poll); the rest comes on the next polls`,
		);
	}
	return items;
}

/** The last low-stock crossing in the journal, reading backwards only as far as needed. */
async function lastCrossing(
	context: IPollFunctions,
	movements: IDataObject[],
	threshold: Threshold,
): Promise<IDataObject | undefined> {
	const articles = new Map<string, IDataObject | undefined>();
	for (let i = movements.length - 1; i >= 0; i--) {
		const [item] = await lowStockItems(context, [movements[i]], threshold, articles);
		if (item) return item;
	}
	return undefined;
}

/**
 * "Fetch Test Event": the most recent item, read from the whole list; nothing saved or changed.
 */
export async function manualPoll(
	context: IPollFunctions,
	settings: PollSettings,
): Promise<IDataObject | undefined> {
	const list = LISTS[settings.watch];
	const read = await readAfter(context, list.path, {}, undefined, undefined);
	const records = read.items;
	if (settings.watch === 'lowStock')
		return await lastCrossing(context, records, settings.threshold);
	const candidates =
		settings.watch === 'invoicePaid'
			? records.filter((record) => record.statut === 'payee')
			: records;
	const last = candidates[candidates.length - 1];
	if (last === undefined) return undefined;
	if (settings.watch === 'invoicePaid') {
		return { id: last.id, type: 'facture.payee', created_at: new Date().toISOString(), data: last };
	}
	return eventItem(list.type, last, last[list.timeField]);
}
