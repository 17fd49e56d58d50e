// Two passes over the input items: every item's parameters are read and checked (`prepare`, no
// request), then the requests are sent in order, so a wrong value in any item stops the node before
// anything reaches the ERP (with Continue On Fail, that item fails, `failedItem`; the others run).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { erpErrorToJson } from '../../shared/transport';
import { withDecimalAmounts } from './amounts';
import type { ItemErp, Prepared } from './erp';
import { erpFor } from './erp';
import { resources } from './node.description';
import { retryMemory } from './retries';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const prepare = resources[resource as keyof typeof resources]?.operations?.[operation];
	if (!prepare) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not supported for the resource "${resource}"`,
		);
	}
	const items = this.getInputData();

	// Pass 1: check every item.
	const steps: Array<{ erp: ItemErp; send: Prepared } | { failed: INodeExecutionData }> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			// The item's Request Options are read (and checked) once, here; every call is bound to the item.
			const erp = erpFor(this, itemIndex);
			const send = withDecimalAmounts(this, itemIndex, prepare.call(this, itemIndex, erp));
			steps.push({ erp, send });
		} catch (error) {
			steps.push({ failed: failedItem(this, error, itemIndex) });
		}
	}

	// Pass 2: send (what an earlier try of Retry On Fail must not send again, is not: retries.ts).
	const memory = items.length > 0 ? retryMemory(this) : undefined;
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const step = steps[itemIndex];
		if ('failed' in step) {
			returnData.push(step.failed);
			continue;
		}
		const outcome = memory?.recall(itemIndex);
		try {
			if (outcome && 'error' in outcome) throw outcome.error;
			const result = outcome ? outcome.result : await step.send();
			memory?.answered(itemIndex, result, step.erp.wrote);
			for (const json of Array.isArray(result) ? result : [result]) {
				returnData.push({ json, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			if (!outcome) memory?.failed(itemIndex, error, step.erp.wrote);
			returnData.push(failedItem(this, error, itemIndex));
		}
	}
	return [returnData];
}

/**
 * The item for failed input item `itemIndex`, by Settings › On Error, as n8n's own nodes do: Stop
 * Workflow throws, naming the item; Continue (regular output) gives `{ error, code, httpCode,
 * description?, details? }`; Continue (using error output) gives `{ error: { message, ... } }` as
 * the HTTP Request node does: every supported n8n (1.123.81, 2.33.7, 2.41.1) moves that json to
 * the error output with the input item's fields (`error` set on the item would lose both).
 */
function failedItem(ctx: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	if (!ctx.continueOnFail()) {
		if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	}
	const { message, ...facts } = erpErrorToJson(error);
	const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
	const json = toErrorOutput ? { error: { message, ...facts } } : { error: message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}
