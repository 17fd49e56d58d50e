// The ERP API for one input item: its request options read once, and every call bound to the item,
// so that every error names it. The router makes one per item and hands it to the operation.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ErpRequest, ErpRequestSettings } from '../../shared/transport';
import {
	erpApiRequest,
	erpApiResponse,
	erpGetMany,
	erpListAnswer,
	erpPaginate,
	getListConventions,
	getRequestSettings,
} from '../../shared/transport';
import type { ListConventions } from '../../shared/conventions';

/** What an operation returns for one input item: one record or a list of records. */
export type OperationResult = IDataObject | IDataObject[];

/** The request step of an operation, built once the item's parameters passed every check. */
export type Prepared = () => Promise<OperationResult>;

/** A request without its item: the item is the one of the ItemErp. */
export type ItemRequest = Omit<ErpRequest, 'itemIndex'>;
type PageOptions = Omit<NonNullable<Parameters<typeof erpPaginate>[2]>, 'itemIndex'>;
type ListOptions = Omit<Parameters<typeof erpGetMany>[2], 'itemIndex'>;

export interface ItemErp {
	readonly itemIndex: number;
	/** The item's Request Options, checked (read once). */
	readonly settings: ErpRequestSettings;
	/**
	 * Whether a request other than a GET was sent (or about to be) for the item, one that a second
	 * run could repeat: not once the operation said it looks for what it wrote before writing
	 * (`looksFirst`, writeOnce.ts), so that a run again finds it instead of writing twice.
	 */
	readonly wrote: boolean;
	/** Says that this item's write is found again before it is written again (see `wrote`). */
	looksFirst(): void;
	request(request: ItemRequest): Promise<IDataObject>;
	response(request: ItemRequest): Promise<{ statusCode: number; body: unknown }>;
	paginate(path: string, qs: IDataObject, options?: PageOptions): AsyncGenerator<IDataObject[]>;
	getMany(
		path: string,
		qs: Parameters<typeof erpGetMany>[1],
		options: ListOptions,
	): Promise<IDataObject[]>;
	/** A list answer's items and next cursor (the credential's list conventions), or undefined. */
	listAnswer(body: unknown): ReturnType<typeof erpListAnswer>;
	/** The credential's list conventions: the names the node gives the cursor and the page size. */
	lists(): Promise<ListConventions>;
}

/**
 * The transport's calls for item `itemIndex`. Reads and checks the item's Request Options now
 * (a bad one throws before any request).
 */
export function erpFor(ctx: IExecuteFunctions, itemIndex: number): ItemErp {
	const settings = getRequestSettings(ctx, itemIndex);
	let wrote = false;
	let looksFirst = false;
	const sending = (request: ItemRequest): ErpRequest => {
		if (request.method !== 'GET') wrote = true;
		return { ...request, itemIndex };
	};
	return {
		itemIndex,
		settings,
		get wrote() {
			return wrote && !looksFirst;
		},
		looksFirst() {
			looksFirst = true;
		},
		request: async (request) =>
			(await erpApiRequest.call(ctx, sending(request), settings)) as IDataObject,
		response: async (request) => await erpApiResponse.call(ctx, sending(request), settings),
		paginate: (path, qs, options = {}) =>
			erpPaginate.call(ctx, path, qs, { ...options, itemIndex }, settings),
		getMany: async (path, qs, options) =>
			await erpGetMany.call(ctx, path, qs, { ...options, itemIndex }, settings),
		listAnswer: async (body) => await erpListAnswer.call(ctx, body, itemIndex),
		lists: async () => await getListConventions(ctx, itemIndex),
	};
}
