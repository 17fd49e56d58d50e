// The memory of the events that already ran, by identity (identity.ts), per trigger node: what
// makes each event run once whether it came by webhook, by catch-up, or both.
//
// Two places: the node's static data (`ranEvents`: identity -> Unix seconds it ran), which n8n
// saves when the trigger emits, so every event's identity is saved with its run and survives a
// restart; and this process's memory, for a delivery received where the trigger does not run
// (a queue-mode webhook processor, or the instant before the trigger started). Each keeps at most
// MAX_RAN_EVENTS identities per node, the oldest forgotten first: enough for what a late ERP retry
// or a list read again from an older position can still bring.
import type { IDataObject } from 'n8n-workflow';

/** The static data key (node scope). */
export const RAN_EVENTS_KEY = 'ranEvents';

/** Most identities kept per trigger node, in each memory. */
export const MAX_RAN_EVENTS = 10_000;

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
		let excess = Object.keys(ran).length - MAX_RAN_EVENTS;
		for (const oldest of Object.keys(ran)) {
			if (excess-- <= 0) break;
			delete ran[oldest];
		}
		// Set at the top of the node's data: n8n marks it changed, and saves it with the next emit.
		saved[RAN_EVENTS_KEY] = ran;
	}
	return true;
}

/** Empties this process's memory: for tests that play a new n8n process. */
export function forgetProcessMemory(): void {
	processMemory.clear();
}
