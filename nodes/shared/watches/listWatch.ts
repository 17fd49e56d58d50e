// A watch whose items are the new records of a list, one each, as they are (New Article, ...).
import type { IDataObject } from 'n8n-workflow';

import type { Watch } from './types';
import { eventItem } from './types';

/** The watch of a plain list: each new record is one item of `type`, the record as its data. */
export function listWatch(
	watch: Pick<Watch, 'name' | 'label' | 'description' | 'path' | 'type' | 'timeField'>,
): Watch<undefined> {
	const itemOf = (record: IDataObject) =>
		eventItem(watch.type, record.id, record[watch.timeField], record);
	return {
		...watch,
		properties: [],
		stateKeys: [],
		readOptions: () => undefined,
		start: () => ({}),
		items: async (_context, records) => ({ items: records.map(itemOf), state: {} }),
		latest: async (_context, records) =>
			records.length ? itemOf(records[records.length - 1]) : undefined,
	};
}
