// Catch-up, after each registration check: the events the webhook missed, read from the ERP's
// lists with the ERP Polling Trigger's watches, each run once (ranEvents.ts). Per event type, a
// position in the static data (WatchPosition). A restart may read records again: their events are
// in the saved memory of events that ran. A failure leaves that type's position as it was.
// Catch-up off drops the state and that memory: turned on again, it starts from now.
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { createdAt, readAfter } from '../shared/watches';
import type { Watch } from '../shared/watches';
import { normalizeEvents } from './events';
import { reportFailure } from './reports';
import { readOptions } from './options';
import type { NodeMemory } from './memory';
import {
	CATCH_UP_WATCHES,
	caughtUpEvents,
	firstRun,
	forgetAll,
	forgetUnneeded,
	itemIdentity,
} from './ranEvents';

const CATCH_UP_KEY = 'catchUp';

/** A record younger than this may still come by webhook: it waits for the next check. */
export const GRACE_SECONDS = 60;

/** Most list pages read per event type and check; the rest comes at the next checks. */
const MAX_PAGES = 10;

/** Per event type: the watch's position and state; every record after it is from `readTo` on. */
interface WatchPosition {
	position?: string;
	state: IDataObject;
	readTo?: number;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Records before the first younger than the grace; `readTo` unknown if one left has no time. */
function settled(watch: Watch, records: IDataObject[], startedMs: number) {
	const youngAfter = Date.now() - GRACE_SECONDS * 1000;
	const young = records.findIndex((record) => createdAt(watch, record) > youngAfter);
	if (young === -1) return { records, readTo: seconds(startedMs) };
	const left = records.slice(young).map((record) => createdAt(watch, record));
	return {
		records: records.slice(0, young),
		readTo: left.some(Number.isNaN) ? undefined : seconds(Math.min(startedMs, ...left)),
	};
}

/** A watch's start from now: the end of its list, and its own state there. */
async function startFromNow(context: ITriggerFunctions, watch: Watch): Promise<WatchPosition> {
	const startedMs = Date.now();
	const end = await readAfter(context, watch.path, {});
	return { position: end.position, state: watch.start(end.items), readTo: seconds(startedMs) };
}

const positionsIn = (data: IDataObject) =>
	(data[CATCH_UP_KEY] ?? {}) as Record<string, WatchPosition | undefined>;

/** The selected event types a list can show. */
const typesOf = (context: ITriggerFunctions) =>
	caughtUpEvents(normalizeEvents(context.getNodeParameter('events', [])));

/** At activation and start: a type with no position starts from now; a failure fails activation. */
export async function startCatchUp(context: ITriggerFunctions): Promise<void> {
	const data = context.getWorkflowStaticData('node');
	const positions = positionsIn(data);
	if (!readOptions(context).catchUp) {
		delete data[CATCH_UP_KEY];
		forgetAll(data);
		return;
	}
	for (const type of typesOf(context)) {
		if (positions[type] !== undefined) continue;
		positions[type] = await startFromNow(context, CATCH_UP_WATCHES[type]);
		data[CATCH_UP_KEY] = positions;
	}
}

/** One event type: its new events emitted, and where it stands after them. */
async function catchUpType(
	context: ITriggerFunctions,
	memory: NodeMemory,
	watch: Watch,
	from: WatchPosition | undefined,
	emit: (item: IDataObject) => void,
): Promise<WatchPosition> {
	if (from === undefined) return await startFromNow(context, watch);
	const startedMs = Date.now();
	const read = await readAfter(context, watch.path, {}, from.position, MAX_PAGES);
	if (read.more) {
		context.logger.info(
			`ERP Trigger: catch-up read ${read.requests} pages of ${watch.path}; the rest comes at the next checks`,
		);
	}
	const { records, readTo } = settled(watch, read.items, startedMs);
	const last = records.length > 0 ? records[records.length - 1].id : undefined;
	// The watch's own options at their defaults (Low Stock: the article's seuil_alerte, as the ERP).
	const options = watch.readOptions({
		value: (_name, fallback) => fallback,
		at: (name) => ({ node: context.getNode(), label: name }),
	});
	const step = await watch.items(context, records, options, from.state ?? {});
	const saved = context.getWorkflowStaticData('node');
	for (const item of step.items) {
		const identity = itemIdentity(item);
		if (identity === undefined || firstRun(memory, identity, saved, true)) {
			emit({ ...item, caught_up: true });
		}
	}
	return {
		position: typeof last === 'string' && last !== '' ? last : from.position,
		state: step.state,
		// Read to the end (not stopped by the page cap): known up to where; else as it was.
		readTo: read.more ? from.readTo : (readTo ?? from.readTo),
	};
}

/** One catch-up: every selected event a list can show, in a fixed order. Never throws. */
export async function catchUp(
	context: ITriggerFunctions,
	memory: NodeMemory,
	emit: (item: IDataObject) => void,
): Promise<void> {
	if (!readOptions(context).catchUp) return;
	for (const type of typesOf(context)) {
		const data = context.getWorkflowStaticData('node');
		const positions = positionsIn(data);
		try {
			const watch = CATCH_UP_WATCHES[type];
			positions[type] = await catchUpType(context, memory, watch, positions[type], emit);
			// Set at the top of the node's data: n8n marks it changed, and saves it with the next emit.
			data[CATCH_UP_KEY] = positions;
		} catch (cause) {
			reportFailure(context, cause, {
				doing: `catching up missed ${type} events`,
				couldNot: `could not catch up missed ${type} events`,
			});
		}
	}
	const data = context.getWorkflowStaticData('node');
	const positions = positionsIn(data);
	forgetUnneeded(memory, data, (type) => {
		if (positions[type] === undefined) return Number.POSITIVE_INFINITY;
		return positions[type].readTo ?? Number.NEGATIVE_INFINITY;
	});
}
