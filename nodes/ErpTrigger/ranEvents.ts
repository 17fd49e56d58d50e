// The memory of the events that already ran, by identity (identity.ts), per trigger node: what
// makes each event run once whether it came by webhook, by catch-up, or both.
//
// Two places: the node's static data (`ranEvents`: identity -> Unix seconds it ran), which n8n
// saves when the trigger emits, so every event's identity is saved with its run and survives a
// restart; and this process's memory, for a delivery received where the trigger does not run
// (a queue-mode webhook processor, or the instant before the trigger started). Each keeps the
// newest MAX_RAN_EVENTS identities per node (the saved one up to TRIM_SLACK more between trims),
// the oldest forgotten first: enough for what a late ERP retry or a list read again from an older
// position can still bring.
import type { IDataObject } from 'n8n-workflow';

/** The static data key (node scope). */
export const RAN_EVENTS_KEY = 'ranEvents';

/** Identities kept per trigger node, the newest (in the process: at most this many). */
export const MAX_RAN_EVENTS = 10_000;

/**
 * The saved memory is trimmed back to MAX_RAN_EVENTS once it holds this many more: counting an
 * object's keys costs O(size), so trims are spaced to stay O(1) per event.
 */
export const TRIM_SLACK = 1_000;

/** The size of each saved memory object, once counted. */
const savedSizes = new WeakMap<object, number>();

const processMemory = new Map<string, Map<string, number>>();

function savedMemory(saved: IDataObject): Record<string, number> {
	const value = saved[RAN_EVENTS_KEY];
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as Record<string, number>)
		: {};
}

/**
 * Whether `identity` runs now for the trigger node `scope`: false when it already ran (in this
 * process, or in `saved`, the trigger's static data, when the trigger runs in this process);
 * otherwise it is recorded in both and true. Check and record are one synchronous step.
 */
export function firstRun(scope: string, identity: string, saved?: IDataObject): boolean {
	let local = processMemory.get(scope);
	if (local === undefined) {
		local = new Map();
		processMemory.set(scope, local);
	}
	const ran = saved === undefined ? undefined : savedMemory(saved);
	if (
		local.has(identity) ||
		(ran !== undefined && Object.prototype.hasOwnProperty.call(ran, identity))
	)
		return false;
	const now = Math.floor(Date.now() / 1000);
	local.set(identity, now);
	for (const oldest of local.keys()) {
		if (local.size <= MAX_RAN_EVENTS) break;
		local.delete(oldest);
	}
	if (saved !== undefined && ran !== undefined) {
		ran[identity] = now;
		let size = (savedSizes.get(ran) ?? Object.keys(ran).length - 1) + 1;
		if (size > MAX_RAN_EVENTS + TRIM_SLACK) {
			const keys = Object.keys(ran);
			for (const oldest of keys.slice(0, keys.length - MAX_RAN_EVENTS)) delete ran[oldest];
			size = MAX_RAN_EVENTS;
		}
		savedSizes.set(ran, size);
		// Set at the top of the node's data: n8n marks it changed, and saves it with the next emit.
		saved[RAN_EVENTS_KEY] = ran;
	}
	return true;
}

/** Empties this process's memory: for tests that play a new n8n process. */
export function forgetProcessMemory(): void {
	processMemory.clear();
}
