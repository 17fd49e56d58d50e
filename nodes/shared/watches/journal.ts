// Reading an ERP list from a saved position. Lists are in id order and continue after the item
// whose id is the `cursor` (docs/api-contract.md, *Lists and pagination*; specification §2.2), so a
// watch's position is the id of the last item it read; within one read it follows `next_cursor`.
import type { IDataObject } from 'n8n-workflow';

import { unlessNotFound } from '../notFound';
import type { ErpContext } from '../transport';
import { erpApiRequest, erpListPage, MAX_PAGE_SIZE } from '../transport';

/**
 * `path` after `position` (or from the start), at most `maxPages` pages of 100 (or all): the items,
 * the new position (the old one if none read), `more` (the page cap stopped it), the requests sent.
 */
export async function readAfter(
	context: ErpContext,
	path: string,
	qs: IDataObject,
	position?: string,
	maxPages?: number,
) {
	const items: IDataObject[] = [];
	let cursor = position;
	let requests = 0;
	let ended = false;
	while (!ended && (maxPages === undefined || requests < maxPages)) {
		const page = await erpListPage.call(context, path, qs, { pageSize: MAX_PAGE_SIZE, cursor });
		requests += 1;
		items.push(...page.data);
		ended = page.nextCursor === undefined || page.data.length === 0;
		cursor = page.nextCursor;
	}
	const lastId = items.length ? items[items.length - 1].id : undefined;
	return {
		items,
		position: typeof lastId === 'string' && lastId !== '' ? lastId : position,
		more: !ended,
		requests,
	};
}

/** One record (`GET /articles/:id`, `GET /factures/:id`), or undefined when it is gone (404). */
export async function readOne(context: ErpContext, path: string, id: string, resource: string) {
	return (await unlessNotFound(
		erpApiRequest.call(context, {
			method: 'GET',
			path: `${path}/${encodeURIComponent(id)}`,
			resource: `${resource} ${id}`,
		}),
	)) as IDataObject | undefined;
}
