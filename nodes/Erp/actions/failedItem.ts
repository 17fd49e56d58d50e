// What becomes of a failed input item, by the node's Settings › On Error, as n8n's own nodes do:
// Stop Workflow throws, naming the item; Continue (regular output) gives `{ error, code, httpCode,
// description?, details? }`; Continue (using error output) gives `{ error: { message, ... } }`, as
// the HTTP Request node does: the json every supported n8n (1.123.81, 2.33.7, 2.41.1) moves to the
// error output with the input item's fields (`error` set on the item would lose both).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { erpErrorToJson } from '../../shared/transport';

/** The item standing for failed input item `itemIndex`; throws unless the node continues on fail. */
export function failedItem(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): INodeExecutionData {
	if (!ctx.continueOnFail()) {
		if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	}
	const { message, ...facts } = erpErrorToJson(error);
	const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
	const json = toErrorOutput ? { error: { message, ...facts } } : { error: message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}
