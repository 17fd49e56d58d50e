// Pagination: cursor-following over list endpoints, on top of the attempt loop.
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { valueAt } from '../conventions';
import { invalid } from '../validation';
import { apiErrorFacts, makeError } from './apiError';
import { resolveCredential } from './credentials';
import type { ResolvedCredential } from './credentials';
import { limitRefusal, limitToSend, MAX_PAGE_SIZE, pageSizeKey, rememberRefusal } from './pageSize';
import { send } from './request';
import type { ErpContext, ErpRequestSettings } from './settings';

/** One page to read: `wanted` items after `cursor` (or after the `cursor` in `qs`, if any). */
interface PageRequest {
	path: string;
	qs: IDataObject;
	wanted: number;
	cursor?: string;
	itemIndex?: number;
}

/** A next cursor as the lists use it: a non-empty string, else undefined (the list ends). */
const cursorOf = (next: unknown) => (typeof next === 'string' && next !== '' ? next : undefined);

// Reads one page of `wanted` items, or what the server is known to accept (pageSize.ts). With
// `mayFallBack` (nothing of this list handed on yet, so no item is lost or read twice), a page
// refused for its size is asked for once more with the server's stated maximum, else with none.
async function readPage(
	context: ErpContext,
	resolved: ResolvedCredential,
	page: PageRequest,
	settings: ErpRequestSettings,
	mayFallBack: boolean,
): Promise<{ data: IDataObject[]; next: unknown }> {
	const { path, itemIndex } = page;
	const { cursorParam, pageSizeParam, itemsPath, nextCursorPath } = resolved.lists;
	const ask = async (limit: number | undefined) => {
		const qs: IDataObject = { ...page.qs, [pageSizeParam]: limit };
		if (page.cursor !== undefined) qs[cursorParam] = page.cursor;
		if (limit === undefined) delete qs[pageSizeParam];
		const request = { method: 'GET' as const, path, qs, itemIndex };
		const { body } = await send(context, resolved, request, settings);
		const data = valueAt(body, itemsPath);
		if (!Array.isArray(data)) {
			throw makeError(
				resolved.node,
				`The ERP API answered GET ${path} with something that is not a list (no "${itemsPath.join('.')}" array)`,
				"Check that the Base URL points to the ERP API v1, and where your ERP puts a list's items: the credential's Items Path (Custom API Conventions).",
				{ code: 'invalid_list_response' },
				itemIndex,
			);
		}
		return { data: data as IDataObject[], next: valueAt(body, nextCursorPath) };
	};
	const key = pageSizeKey(resolved.node, resolved.credentialType, resolved.baseUrl);
	const limit = limitToSend(key, page.wanted);
	// The transport's errors go on unchanged, but for a first refusal of the page size (once only).
	if (!mayFallBack || limit === undefined) return await ask(limit);
	return await ask(limit).catch(async (error: unknown) => {
		const refusal = limitRefusal(apiErrorFacts(error), limit, pageSizeParam);
		if (refusal === undefined) throw error;
		rememberRefusal(key, limit, refusal.maximum);
		const smaller = limitToSend(key, page.wanted);
		context.logger.info(
			`ERP API refused ${pageSizeParam}=${limit} on GET ${path}; reading ${smaller === undefined ? "the server's default page size" : `pages of ${smaller}`} from now on with this credential`,
		);
		return await ask(smaller);
	});
}

function clampPageSize(pageSize: number | undefined): number {
	return Math.max(1, Math.min(MAX_PAGE_SIZE, Math.floor(pageSize ?? MAX_PAGE_SIZE)));
}

type PageOptions = { pageSize?: number; max?: number; itemIndex?: number; cursor?: string };

// Pages of a list, `pageSize` each (default and maximum 100), from `cursor` if any, up to `max`
// items, the credential read once. Ends on a null, missing or empty cursor; fails on a repeat.
export async function* erpPaginate(
	this: ErpContext,
	path: string,
	qs: IDataObject,
	options: PageOptions,
	settings: ErpRequestSettings = {},
): AsyncGenerator<IDataObject[]> {
	yield* pages(this, await resolveCredential(this, options.itemIndex), path, qs, options, settings);
}

/** erpPaginate with the credential already resolved. */
async function* pages(
	context: ErpContext,
	resolved: ResolvedCredential,
	path: string,
	qs: IDataObject,
	options: PageOptions,
	settings: ErpRequestSettings,
): AsyncGenerator<IDataObject[]> {
	const pageSize = clampPageSize(options.pageSize);
	const { max, itemIndex } = options;
	const seen = new Set<string>();
	let cursor: string | undefined = options.cursor;
	let count = 0;
	while (max === undefined || count < max) {
		const wanted = max === undefined ? pageSize : Math.min(pageSize, max - count);
		const request = { path, qs, wanted, cursor, itemIndex };
		const first = count === 0 && cursor === options.cursor;
		const page = await readPage(context, resolved, request, settings, first);
		let items = page.data;
		if (max !== undefined && items.length > max - count) items = items.slice(0, max - count);
		count += items.length;
		if (items.length > 0) yield items;

		const next = cursorOf(page.next);
		if (next === undefined) return;
		if (seen.has(next)) {
			throw new NodeOperationError(
				resolved.node,
				`The ERP API returned the same page cursor twice while listing ${path}; stopped to avoid an endless loop`,
				{
					description: `${count} items were read before the repeated cursor. A server that answers the first page again ignored the query parameter "${resolved.lists.cursorParam}": if your ERP names its cursor otherwise (such as starting_after), set it in the credential's Custom API Conventions. Otherwise this is a server-side problem; try again later.`,
					itemIndex,
				},
			);
		}
		seen.add(next);
		cursor = next;
	}
}

/** One page of a list endpoint, from `cursor` (the editor's searchable lists). */
export async function erpListPage(
	this: ErpContext,
	path: string,
	qs: IDataObject,
	options: { pageSize?: number; cursor?: string; itemIndex?: number },
): Promise<{ data: IDataObject[]; nextCursor?: string }> {
	const { cursor, itemIndex } = options;
	const request = { path, qs, wanted: clampPageSize(options.pageSize), cursor, itemIndex };
	const page = await readPage(this, await resolveCredential(this, itemIndex), request, {}, true);
	return { data: page.data, nextCursor: cursorOf(page.next) };
}

// Every item (returnAll) or the first `limit` (default 50) of a list, in pages of `pageSize`
// (default and max 100), the credential read once. `free` is checked against its list conventions
// before `qs` is made (a step: Get Many resolves article references): a refused name sends nothing.
export async function erpGetMany(
	this: ErpContext,
	path: string,
	qs: IDataObject | (() => Promise<IDataObject>),
	options: {
		returnAll: boolean;
		limit?: number;
		pageSize?: number;
		itemIndex?: number;
		/** Free query parameters and their label (never the credential's cursor/page size names). */
		free?: { label: string; values: IDataObject };
	},
	settings: ErpRequestSettings,
): Promise<IDataObject[]> {
	const { itemIndex, free } = options;
	const max = options.returnAll ? undefined : Math.max(0, Math.floor(options.limit ?? 50));
	const items: IDataObject[] = [];
	if (max === 0) return items;
	const resolved = await resolveCredential(this, itemIndex);
	const { cursorParam, pageSizeParam } = resolved.lists;
	for (const [name, what] of [
		[cursorParam, 'cursor'],
		[pageSizeParam, 'page size'],
	]) {
		if (free !== undefined && name in free.values) {
			throw invalid(
				{ node: resolved.node, label: free.label, itemIndex },
				`"${name}" is set by the node: the credential's API conventions use it for the ${what} (use Return All / Limit and Options › Page Size instead)`,
			);
		}
	}
	const query = { ...free?.values, ...(typeof qs === 'function' ? await qs() : qs) };
	const pageOptions = { max, pageSize: options.pageSize, itemIndex };
	for await (const page of pages(this, resolved, path, query, pageOptions, settings)) {
		for (const item of page) items.push(item);
	}
	return items;
}

// A list answer's items and next cursor, where the list conventions put them (default `data`,
// `pagination.next_cursor`); undefined if `body` is not one (no items array, or nothing where the
// cursor's object goes). For answers known to be lists only once read (API Request).
export async function erpListAnswer(
	this: ErpContext,
	body: unknown,
	itemIndex?: number,
): Promise<{ data: unknown[]; nextCursor?: string } | undefined> {
	const { itemsPath, nextCursorPath } = (await resolveCredential(this, itemIndex)).lists;
	const data = valueAt(body, itemsPath);
	const holder = valueAt(body, nextCursorPath.slice(0, -1));
	if (!Array.isArray(data) || typeof holder !== 'object' || holder === null) return undefined;
	return { data, nextCursor: cursorOf(valueAt(body, nextCursorPath)) };
}
