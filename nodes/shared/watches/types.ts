// What a watch is: one thing the ERP can be watched for by reading one of its lists from a saved
// position (the ERP Polling Trigger's watches, and the ERP Trigger's catch-up).
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { ErpContext } from '../transport';
import type { ValueSource } from '../validation';

/**
 * Registered in ./index.ts. Items have the ERP Trigger's shape `{ id, type, created_at, data }`, so
 * one trigger can replace the other; `id` is the source record's (webhook `evt_` ids are in no
 * list). `start` and `items` return the watch's state, which the caller saves with the position.
 */
export interface Watch<Options = unknown> {
	/** The Watch parameter's value (saved in workflows and in the node's state: never renamed). */
	readonly name: string;
	readonly label: string;
	readonly description: string;
	/** What it reads: a list in id order, continued after a saved position. */
	readonly path: string;
	/** Its items' `type`: the ERP's webhook event where there is one. */
	readonly type: string;
	/** The record's field that says when it was created (Start From a date). */
	readonly timeField: string;
	readonly properties: INodeProperties[];
	/** The keys of the saved state it owns besides the position (cleared at a new start). */
	readonly stateKeys: readonly string[];
	/** Its own parameters, read and checked before any request (`at`: where a value came from). */
	readOptions(parameters: {
		value(name: string, fallback: unknown): unknown;
		at(name: string): ValueSource;
	}): Options;
	/** Its start from now: its own state, given the whole list as it is now. */
	start(records: IDataObject[]): IDataObject;
	/** Items for new records (list order) and its `stateKeys` after them; `state` is not changed. */
	items(
		context: ErpContext,
		records: IDataObject[],
		options: Options,
		state: IDataObject,
	): Promise<{ items: IDataObject[]; state: IDataObject }>;
	/** "Fetch Test Event": the most recent item in the whole list (`records`), or undefined. */
	latest(
		context: ErpContext,
		records: IDataObject[],
		options: Options,
	): Promise<IDataObject | undefined>;
}

export function eventItem(
	type: string,
	id: IDataObject[string],
	createdAt: unknown,
	data: IDataObject,
): IDataObject {
	return { id, type, created_at: typeof createdAt === 'string' ? createdAt : null, data };
}
