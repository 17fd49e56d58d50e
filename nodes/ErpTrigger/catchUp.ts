// Catch-up: the events the webhook missed (n8n down, the registration lost, deliveries the ERP gave
// up on), read from the ERP's lists as the ERP Polling Trigger's watches read them
// (nodes/shared/watches: `readSince`, then the watch's `items`), each run once (identity.ts,
// ranEvents.ts). It runs at the registration check's ticks (triggerRun.ts), after the check.
//
// State, in the node's static data under `catchUp`: per event type, the watch's position (the id
// of the last record read) and its own state. The first time (no saved state) each watch starts
// from now and emits nothing. Then each check reads each watch after its position, and emits, one
// run each, every derived event whose identity has not run yet (recorded before it is emitted),
// except records younger than GRACE_SECONDS, which may still be on their way by webhook: the
// position stops before the first of them so the next check sees it. The positions move on after
// the emits, so n8n saves them with the next emit: a restart may read some records again, whose
// events have run and are in the saved memory. A failure is logged and saved as a failed
// execution, and leaves that event type's position where it was.
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { readSince } from '../shared/watches';
import type { Watch } from '../shared/watches';
import { normalizeEvents } from './events';
import { reportFailure } from './health';
import { CATCH_UP_WATCHES, caughtUpEvents, itemIdentity } from './identity';
import { readOptions } from './options';
import { firstRun } from './ranEvents';
import { scopeOf } from './webhookLifecycle';

/** The static data key (node scope). */
export const CATCH_UP_KEY = 'catchUp';

/** A record younger than this may still come by webhook: it waits for the next check. */
export const GRACE_SECONDS = 60;

/** Most list pages read per event type and check; the rest comes at the next checks. */
const MAX_PAGES = 10;

/** What catch-up keeps per event type. */
interface WatchPosition {
	position?: string;
	state: IDataObject;
}

/** The records old enough to be caught up: those before the first younger than the grace. */
function settled(watch: Watch, records: IDataObject[], nowMs: number): IDataObject[] {
	const young = records.findIndex((record) => {
		const value = record[watch.timeField];
		const time = typeof value === 'string' ? Date.parse(value) : NaN;
		return !Number.isNaN(time) && time > nowMs - GRACE_SECONDS * 1000;
	});
	return young === -1 ? records : records.slice(0, young);
}

/** The watch's own options at their defaults (Low Stock: the article's seuil_alerte, as the ERP). */
function defaultOptions(context: ITriggerFunctions, watch: Watch): unknown {
	return watch.readOptions({
		value: (_name, fallback) => fallback,
		at: (name) => ({ node: context.getNode(), label: name }),
	});
}

/** A watch's start from now: the end of its list, and its own state there. */
async function startFromNow(context: ITriggerFunctions, watch: Watch): Promise<WatchPosition> {
	const end = await readSince(context, watch, undefined, undefined);
	return { position: end.position, state: watch.start(end.items) };
}

/** The saved positions, per event type, and the selected event types a list can show. */
function positionsOf(context: ITriggerFunctions): {
	data: IDataObject;
	positions: Record<string, WatchPosition>;
	types: string[];
} {
	const data = context.getWorkflowStaticData('node');
	return {
		data,
		positions: (data[CATCH_UP_KEY] ?? {}) as Record<string, WatchPosition>,
		types: caughtUpEvents(normalizeEvents(context.getNodeParameter('events', []))),
	};
}

/**
 * At activation and start (in `trigger()`, after which n8n saves the static data): each selected
 * event type with no saved position starts from now. A failure is thrown: the activation fails
 * rather than starting without the start saved.
 */
export async function startCatchUp(context: ITriggerFunctions): Promise<void> {
	if (!readOptions(context).catchUp) return;
	const { data, positions, types } = positionsOf(context);
	for (const type of types) {
		if (positions[type] !== undefined) continue;
		positions[type] = await startFromNow(context, CATCH_UP_WATCHES[type]);
		data[CATCH_UP_KEY] = positions;
	}
}

/** One event type: its new events emitted, and where it stands after them. */
async function catchUpType(
	context: ITriggerFunctions,
	watch: Watch,
	saved: WatchPosition | undefined,
	emit: (item: IDataObject) => void,
): Promise<WatchPosition> {
	if (saved === undefined) return await startFromNow(context, watch);
	const read = await readSince(context, watch, saved.position, MAX_PAGES);
	if (read.more) {
		context.logger.info(
			`ERP Trigger: catch-up read ${read.requests} pages of ${watch.path}; the rest comes at the next checks`,
		);
	}
	const records = settled(watch, read.items, Date.now());
	const last = records.length > 0 ? records[records.length - 1].id : undefined;
	const step = await watch.items(
		context,
		records,
		defaultOptions(context, watch),
		saved.state ?? {},
	);
	const scope = scopeOf(context);
	const memory = context.getWorkflowStaticData('node');
	for (const item of step.items) {
		const identity = itemIdentity(item);
		if (identity === undefined || firstRun(scope, identity, memory)) {
			emit({ ...item, caught_up: true });
		}
	}
	return {
		position: typeof last === 'string' && last !== '' ? last : saved.position,
		state: step.state,
	};
}

/**
 * One catch-up: every selected event a list can show, in a fixed order. Never throws; returns how
 * many events it emitted (for tests), or undefined when catch-up is off.
 */
export async function catchUp(
	context: ITriggerFunctions,
	emit: (item: IDataObject) => void,
): Promise<number | undefined> {
	if (!readOptions(context).catchUp) return undefined;
	const { types } = positionsOf(context);
	let emitted = 0;
	const counted = (item: IDataObject) => {
		emitted += 1;
		emit(item);
	};
	for (const type of types) {
		const { data, positions } = positionsOf(context);
		try {
			positions[type] = await catchUpType(
				context,
				CATCH_UP_WATCHES[type],
				positions[type],
				counted,
			);
			// Set at the top of the node's data: n8n marks it changed, and saves it with the next emit.
			data[CATCH_UP_KEY] = positions;
		} catch (cause) {
			reportFailure(context, cause, {
				doing: `catching up missed ${type} events`,
				couldNot: `could not catch up missed ${type} events`,
			});
		}
	}
	return emitted;
}
