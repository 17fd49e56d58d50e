// What becomes of an input item that failed (its parameters refused, or its request), by the
// node's Settings › On Error, as n8n's own nodes do: Stop Workflow throws, naming the item;
// Continue (regular output) gives `{ error, code, httpCode, description?, details? }`; Continue
// (using error output) gives `{ error: { message, code, httpCode, description?, details? } }`,
// as n8n's HTTP Request node does: the one json every supported n8n (1.123.81, 2.33.7, 2.41.1)
// moves to the error output with the input item's fields (handleNodeErrorOutput moves a json of
// `error` alone; `error` set on the item instead would lose the ERP's facts and the input's fields).
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { erpErrorToJson } from '../../shared/transport';

/** The error as thrown when it is already a node error; anything else wrapped, with the item. */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}

/** The json of a failed item under the node's On Error setting (see above). */
function failedJson(ctx: IExecuteFunctions, error: unknown): IDataObject {
	const { message, ...facts } = erpErrorToJson(error);
	if (ctx.getNode().onError === 'continueErrorOutput') return { error: { message, ...facts } };
	return { error: message, ...facts };
}

/**
 * The item that stands for failed input item `itemIndex`, paired with it; throws the error
 * (naming the item) unless the node continues on fail.
 */
export function failedItem(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): INodeExecutionData {
	if (!ctx.continueOnFail()) throw asNodeError(ctx.getNode(), error, itemIndex);
	return { json: failedJson(ctx, error), pairedItem: { item: itemIndex } };
}
