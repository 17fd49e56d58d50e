// Pagination: cursor-following over list endpoints, on top of the attempt loop.
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { resolveCredential } from './credentials';
import { listShapeError } from './errors';
import { send } from './request';
import type { ErpContext, ErpRequestSettings } from './types';

const MAX_PAGE_SIZE = 100;

/**
 * Pages of a list endpoint, following `next_cursor`. `pageSize` (default and maximum 100) is the
 * `limit` query parameter; `max` stops after that many items. Stops on a null, missing or empty
 * cursor; fails on a cursor it has already followed. The credential is resolved once per list.
 */
export async function* erpPaginate(
	this: ErpContext,
	path: string,
	qs: IDataObject,
	options: { pageSize?: number; max?: number; itemIndex?: number },
	settings: ErpRequestSettings = {},
): AsyncGenerator<IDataObject[]> {
	const pageSize = Math.max(
		1,
		Math.min(MAX_PAGE_SIZE, Math.floor(options.pageSize ?? MAX_PAGE_SIZE)),
	);
	const { max, itemIndex } = options;
	const resolved = await resolveCredential(this, itemIndex);
	const seen = new Set<string>();
	let cursor: string | undefined;
	let count = 0;
	while (max === undefined || count < max) {
		const limit = max === undefined ? pageSize : Math.min(pageSize, max - count);
		const { body: page } = (await send(
			this,
			resolved,
			{
				method: 'GET',
				path,
				qs: { ...qs, limit, ...(cursor !== undefined ? { cursor } : {}) },
				itemIndex,
			},
			settings,
		)) as { body: { data?: unknown; pagination?: { next_cursor?: unknown } } };
		if (!page || !Array.isArray(page.data)) throw listShapeError(resolved.node, path, itemIndex);
		let items = page.data as IDataObject[];
		if (max !== undefined && items.length > max - count) items = items.slice(0, max - count);
		count += items.length;
		if (items.length > 0) yield items;

		const next = page.pagination?.next_cursor;
		if (typeof next !== 'string' || next === '') return;
		if (seen.has(next)) {
			throw new NodeOperationError(
				resolved.node,
				`The ERP API returned the same page cursor twice while listing ${path}; stopped to avoid an endless loop`,
				{
					description: `${count} items were read before the repeated cursor. This is a server-side problem; try again later.`,
					itemIndex,
				},
			);
		}
		seen.add(next);
		cursor = next;
	}
}

/** Every item (returnAll) or the first `limit` (default 50) of a list endpoint. */
export async function erpGetMany(
	this: ErpContext,
	path: string,
	qs: IDataObject,
	options: { returnAll: boolean; limit?: number; itemIndex?: number },
	settings?: ErpRequestSettings,
): Promise<IDataObject[]> {
	const max = options.returnAll ? undefined : Math.max(0, Math.floor(options.limit ?? 50));
	const items: IDataObject[] = [];
	if (max === 0) return items;
	for await (const page of erpPaginate.call(
		this,
		path,
		qs,
		{ max, itemIndex: options.itemIndex },
		settings,
	)) {
		for (const item of page) items.push(item);
	}
	return items;
}
