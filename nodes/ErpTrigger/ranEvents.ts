// Each event runs once, by webhook, catch-up or both (docs/api-contract.md). Its identity: its type
// and a key in its data (the invoice's or stock movement's id), in a delivery at the credential's
// Event Identity Paths, in a list-derived item its `id`. Those that ran are kept (`maxRanEvents` at
// most) in the static data, saved with each run, and in the process memory, for a delivery received
// where the trigger does not run. Each catch-up trims the saved ones: `ranEvents` (delivered) while
// a catch-up may still read their record; `ranCaughtUp` CAUGHT_UP_KEEP_SECONDS, for late retries.
import type { IDataObject } from 'n8n-workflow';

import type { EventConventions } from '../shared/conventions';
import { valueAt } from '../shared/conventions';
import type { Watch } from '../shared/watches';
import { WATCHES } from '../shared/watches';
import { idText, isSelected } from './events';
import type { NodeMemory } from './memory';

/** The events a list can show, each with the watch that derives it from the ERP's lists. */
export const CATCH_UP_WATCHES: Readonly<Record<string, Watch>> = Object.fromEntries(
	[WATCHES.invoice, WATCHES.invoicePaid, WATCHES.lowStock].map((watch) => [watch.type, watch]),
);

/** Whether events of `type` can be caught up from a list (and so need an identity). */
export const isCaughtUp = (type: string) =>
	Object.prototype.hasOwnProperty.call(CATCH_UP_WATCHES, type);

/** The caught-up events among a (normalized) selection, in a fixed order. */
export const caughtUpEvents = (selection: string[]) =>
	Object.keys(CATCH_UP_WATCHES)
		.filter((type) => isSelected(selection, type))
		.sort();

/** `type:key`, or undefined when the key is not a non-empty text or a whole number. */
function identityOf(type: string, key: unknown): string | undefined {
	const text = idText(key);
	return text === undefined ? undefined : `${type}:${text}`;
}

/** A delivery's identity, read from its data where the conventions say; undefined when absent. */
export function deliveryIdentity(type: string, data: unknown, conventions: EventConventions) {
	const path = conventions.identityPaths[type];
	return path === undefined ? undefined : identityOf(type, valueAt(data, path));
}

export const itemIdentity = (item: IDataObject) => identityOf(String(item.type), item.id);

/** The static data keys (node scope), each identity -> the Unix second it ran. */
export const RAN_EVENTS_KEY = 'ranEvents';
export const RAN_CAUGHT_UP_KEY = 'ranCaughtUp';

/** The saved memory is trimmed back to `maxRanEvents` once it holds this many more (O(1) each). */
export const TRIM_SLACK = 1_000;

/** The most the ERP's clock and n8n's may differ by (a record's time against when its event ran). */
export const CLOCK_MARGIN_SECONDS = 5 * 60;

/** How long a caught-up event's identity is kept: longer than a sender retries (Shopify ~4 h). */
export const CAUGHT_UP_KEEP_SECONDS = 72 * 60 * 60;

const nowSeconds = () => Math.floor(Date.now() / 1000);

function savedMemory(saved: IDataObject, key: string): Record<string, number> {
	const value = saved[key];
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as Record<string, number>)
		: {};
}

const has = (memory: Record<string, number>, identity: string) =>
	Object.prototype.hasOwnProperty.call(memory, identity);

/** False if `identity` ran in this process or `saved`; else records it in both, synchronously. */
export function firstRun(
	memory: NodeMemory,
	identity: string,
	saved?: IDataObject,
	caughtUp = false,
): boolean {
	const local = memory.ran;
	if (local.has(identity)) return false;
	if (
		saved !== undefined &&
		(has(savedMemory(saved, RAN_EVENTS_KEY), identity) ||
			has(savedMemory(saved, RAN_CAUGHT_UP_KEY), identity))
	)
		return false;
	const now = nowSeconds();
	const max = memory.limits.maxRanEvents;
	local.set(identity, now);
	for (const oldest of local.keys()) {
		if (local.size <= max) break;
		local.delete(oldest);
	}
	if (saved === undefined) return true;
	const key = caughtUp ? RAN_CAUGHT_UP_KEY : RAN_EVENTS_KEY;
	const ran = savedMemory(saved, key);
	ran[identity] = now;
	let size = (memory.savedSizes.get(ran) ?? Object.keys(ran).length - 1) + 1;
	if (size > max + TRIM_SLACK) {
		const keys = Object.keys(ran);
		for (const oldest of keys.slice(0, keys.length - max)) delete ran[oldest];
		size = max;
	}
	memory.savedSizes.set(ran, size);
	// Set at the top of the node's data: n8n marks it changed, and saves it with the next emit.
	saved[key] = ran;
	return true;
}

/** Removes from the saved memory under `key` (in place) the identities `forget` says. */
function forgetWhere(
	memory: NodeMemory,
	saved: IDataObject,
	key: string,
	forget: (identity: string, ranAt: number) => boolean,
): void {
	if (saved[key] === undefined) return;
	const ran = savedMemory(saved, key);
	for (const [identity, ranAt] of Object.entries(ran)) {
		if (forget(identity, ranAt)) delete ran[identity];
	}
	memory.savedSizes.set(ran, Object.keys(ran).length);
	saved[key] = ran;
}

/**
 * Forgets in `saved` what no catch-up or sender can bring again: delivered events run before
 * `readTo(type)` (the Unix second its list was read whole to) - CLOCK_MARGIN_SECONDS, caught-up
 * ones after CAUGHT_UP_KEEP_SECONDS.
 */
export function forgetUnneeded(
	memory: NodeMemory,
	saved: IDataObject,
	readTo: (type: string) => number,
): void {
	forgetWhere(memory, saved, RAN_EVENTS_KEY, (identity, ranAt) => {
		const type = identity.slice(0, identity.indexOf(':'));
		return ranAt < readTo(type) - CLOCK_MARGIN_SECONDS;
	});
	const oldest = nowSeconds() - CAUGHT_UP_KEEP_SECONDS;
	forgetWhere(memory, saved, RAN_CAUGHT_UP_KEY, (_identity, ranAt) => ranAt < oldest);
}

/** Catch-up off: the saved memory is not needed (nothing records or reads it). */
export function forgetAll(saved: IDataObject): void {
	delete saved[RAN_EVENTS_KEY];
	delete saved[RAN_CAUGHT_UP_KEY];
}
