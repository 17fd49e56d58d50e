// The watches (./types.ts), registered in WATCHES. Reading one: `readAfter` (its `path` after the
// saved position), then the watch's `items`; save `read.position` and the state together.
import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { invoicePaid } from './invoicePaid';
import { article, client, invoice, stockMovement } from './listWatch';
import { lowStock } from './lowStock';
import type { Watch } from './types';

export { readAfter } from './journal';
export type { Watch } from './types';

/** Every watch, by its name (the Watch parameter's value). */
export const WATCHES: Readonly<Record<string, Watch>> = Object.fromEntries(
	[stockMovement, lowStock, article, client, invoice, invoicePaid].map((w) => [w.name, w]),
);

export function watchNamed(name: unknown): Watch | undefined {
	return typeof name === 'string' && Object.prototype.hasOwnProperty.call(WATCHES, name)
		? WATCHES[name]
		: undefined;
}

/** The Watch parameter's options, in the editor's order (by label). */
export const WATCH_OPTIONS: INodePropertyOptions[] = Object.values(WATCHES)
	.map(({ label, name, description }) => ({ name: label, value: name, description }))
	.sort((a, b) => a.name.localeCompare(b.name));

/** Every watch's own parameters, each shown only while it is chosen. */
export const WATCH_PROPERTIES: INodeProperties[] = Object.values(WATCHES).flatMap((watch) =>
	watch.properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, watch: [watch.name] },
		},
	})),
);

/** The saved state's keys the watches own besides the position. */
export const WATCH_STATE_KEYS = [...new Set(Object.values(WATCHES).flatMap((w) => w.stateKeys))];

/** When a record was created (milliseconds, from the watch's `timeField`), or NaN. */
export function createdAt(watch: Watch, record: IDataObject): number {
	const value = record[watch.timeField];
	return typeof value === 'string' ? Date.parse(value) : NaN;
}

/** Records created at or after `since` (all when undefined; one without a time is kept). */
export function createdSince(watch: Watch, records: IDataObject[], since: string | undefined) {
	if (since === undefined) return records;
	return records.filter((record) => {
		const time = createdAt(watch, record);
		return Number.isNaN(time) || time >= Date.parse(since);
	});
}
