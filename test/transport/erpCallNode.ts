/**
 * `test.erpCall`: a test-only node that calls the shared transport the way the ERP nodes do,
 * so transport behaviour is tested through real workflows before (and apart from) the ERP node.
 * Parameters: authentication, mode (request | getMany), method, path, qs, body, returnAll, limit,
 * resource, timeoutSeconds (0: the transport's default), requestOptions (the shared collection). Errors: continueOnFail items via erpErrorToJson.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	authenticationDescription,
	erpCredentialsDescription,
	requestOptionsDescription,
} from '../../nodes/shared/descriptions';
import { testNodeDescription } from '../harness/fixtures';
import type { ErpRequest } from '../../nodes/shared/transport';
import {
	erpApiRequest,
	erpErrorToJson,
	erpGetMany,
	getRequestSettings,
} from '../../nodes/shared/transport';

export const ERP_CALL_TYPE = 'test.erpCall';

/** The transport's errors as they are (their type matters to the tests); anything else wrapped. */
function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeApiError(context.getNode(), error as JsonObject);
}

export const erpCallNode: INodeType = {
	description: testNodeDescription('erpCall', 'ERP Call (test)', {
		description: 'Calls the ERP transport',
		defaults: { name: 'ERP Call' },
		credentials: erpCredentialsDescription,
		properties: [
			authenticationDescription,
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'request' },
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '/articles' },
			{ displayName: 'Query', name: 'qs', type: 'json', default: '{}' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '' },
			{ displayName: 'Return All', name: 'returnAll', type: 'boolean', default: false },
			{ displayName: 'Limit', name: 'limit', type: 'number', default: 50 },
			{ displayName: 'Resource', name: 'resource', type: 'string', default: '' },
			{ displayName: 'Timeout (Seconds)', name: 'timeoutSeconds', type: 'number', default: 0 },
			requestOptionsDescription,
		],
	}),
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		const json = (name: string, i: number): IDataObject | undefined => {
			const value = this.getNodeParameter(name, i, '') as unknown;
			if (value === '' || value === undefined) return undefined;
			return (typeof value === 'string' ? JSON.parse(value) : value) as IDataObject;
		};
		for (let i = 0; i < items.length; i++) {
			try {
				const settings = getRequestSettings(this, i);
				const timeoutSeconds = this.getNodeParameter('timeoutSeconds', i) as number;
				if (timeoutSeconds > 0) settings.timeoutSeconds = timeoutSeconds;
				const path = this.getNodeParameter('path', i) as string;
				const qs = json('qs', i) ?? {};
				if (this.getNodeParameter('mode', i) === 'getMany') {
					const returnAll = this.getNodeParameter('returnAll', i) as boolean;
					const limit = this.getNodeParameter('limit', i) as number;
					const found = await erpGetMany.call(this, path, qs, { returnAll, limit }, settings);
					for (const item of found) out.push({ json: item, pairedItem: { item: i } });
					continue;
				}
				const resource = this.getNodeParameter('resource', i) as string;
				const request: ErpRequest = {
					method: this.getNodeParameter('method', i) as ErpRequest['method'],
					path,
					qs,
					body: json('body', i),
					itemIndex: i,
					resource: resource || undefined,
				};
				const answer = (await erpApiRequest.call(this, request, settings)) as IDataObject;
				out.push({ json: answer, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: erpErrorToJson(error), pairedItem: { item: i } });
					continue;
				}
				throw asNodeError(this, error);
			}
		}
		return [out];
	},
};
