// Interface stub: the transport helper replaces the bodies. Signatures are fixed by CONTRIBUTING.md.
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export type ErpContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface ErpRequest {
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	itemIndex?: number;
	resource?: string;
	idempotencyKey?: string | false;
}

export interface ErpRequestSettings {
	maxWaitSeconds?: number;
	idempotencyKey?: 'auto' | 'off' | string;
}

export async function erpApiRequest(
	this: ErpContext,
	_request: ErpRequest,
	_settings?: ErpRequestSettings,
): Promise<any> {
	throw new Error('not implemented yet');
}

export async function* erpPaginate(
	this: ErpContext,
	_path: string,
	_qs: IDataObject,
	_options: { pageSize?: number; max?: number },
	_settings?: ErpRequestSettings,
): AsyncGenerator<IDataObject[]> {
	throw new Error('not implemented yet');
}

export async function erpGetMany(
	this: ErpContext,
	_path: string,
	_qs: IDataObject,
	_options: { returnAll: boolean; limit?: number },
	_settings?: ErpRequestSettings,
): Promise<IDataObject[]> {
	throw new Error('not implemented yet');
}
