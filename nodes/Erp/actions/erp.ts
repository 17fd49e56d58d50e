// The ERP API for one input item: its request options read once, and every call bound to the item,
// so that every error names it. The router makes one per item and hands it to the operation.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ErpRequest } from '../../shared/transport';
import {
	erpApiRequest,
	erpApiResponse,
	erpGetMany,
	erpListAnswer,
	erpPaginate,
	getListConventions,
	getRequestSettings,
} from '../../shared/transport';

export type OperationResult = IDataObject | IDataObject[];
/** The request step of an operation, built once the item's parameters passed every check. */
export type Prepared = () => Promise<OperationResult>;
/** An operation: reads and checks one item's parameters (no request), returns its request step. */
export type Operation = (this: IExecuteFunctions, itemIndex: number, erp: ItemErp) => Prepared;
/** A request without its item: the item is the one of the ItemErp. */
export type ItemRequest = Omit<ErpRequest, 'itemIndex'>;
type PageOptions = Omit<NonNullable<Parameters<typeof erpPaginate>[2]>, 'itemIndex'>;
type ListOptions = Omit<Parameters<typeof erpGetMany>[2], 'itemIndex'>;
export type ItemErp = ReturnType<typeof erpFor>;

/** The transport's calls for item `itemIndex`; its Request Options are read and checked now. */
export function erpFor(ctx: IExecuteFunctions, itemIndex: number) {
	const settings = getRequestSettings(ctx, itemIndex);
	let wrote = false;
	let looksFirst = false;
	const sending = (request: ItemRequest): ErpRequest => {
		if (request.method !== 'GET') wrote = true;
		return { ...request, itemIndex };
	};
	const paginate = (path: string, qs: IDataObject, options: PageOptions = {}) =>
		erpPaginate.call(ctx, path, qs, { ...options, itemIndex }, settings);
	return {
		itemIndex,
		settings,
		/** Whether a non-GET was (or is about to be) sent, unless it `looksFirst` (writeOnce.ts). */
		get wrote() {
			return wrote && !looksFirst;
		},
		looksFirst() {
			looksFirst = true;
		},
		request: async (request: ItemRequest) =>
			(await erpApiRequest.call(ctx, sending(request), settings)) as IDataObject,
		response: async (request: ItemRequest) =>
			await erpApiResponse.call(ctx, sending(request), settings),
		paginate,
		/** The first record of the list that `matches`, reading every page (the filters are a hint). */
		async find(path: string, qs: IDataObject, matches: (record: IDataObject) => boolean) {
			for await (const page of paginate(path, qs, { pageSize: 100 })) {
				const match = page.find(matches);
				if (match) return match;
			}
			return undefined;
		},
		getMany: async (path: string, qs: Parameters<typeof erpGetMany>[1], options: ListOptions) =>
			await erpGetMany.call(ctx, path, qs, { ...options, itemIndex }, settings),
		/** A list answer's items and next cursor (the credential's list conventions), or undefined. */
		listAnswer: async (body: unknown) => await erpListAnswer.call(ctx, body, itemIndex),
		/** The credential's list conventions: the names the node gives the cursor and the page size. */
		lists: async () => await getListConventions(ctx, itemIndex),
	};
}
