// Runs the chosen operation over the input items, in two passes:
// 1. every item's parameters are read and checked, without any request (`prepare`);
// 2. the items' requests are sent, in order.
// So a wrong value in any item stops the node before anything reaches the ERP (with Continue On
// Fail, that item becomes a failed item and the others run). The per-item loop and pairing live
// here only; what a failed item becomes, by Settings › On Error, in failedItem.ts.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as apiRequest from './apiRequest/ApiRequest.resource';
import * as article from './article/Article.resource';
import * as client from './client/Client.resource';
import * as generalLedger from './generalLedger/GeneralLedger.resource';
import * as invoice from './invoice/Invoice.resource';
import * as settlement from './settlement/Settlement.resource';
import * as stockMovement from './stockMovement/StockMovement.resource';
import { withDecimalAmounts } from './amounts';
import type { ItemErp, Prepared } from './erp';
import { erpFor } from './erp';
import { failedItem } from './failedItem';

/** Reads and checks one item's parameters (no request) and returns its request step. */
type Operation = (this: IExecuteFunctions, itemIndex: number, erp: ItemErp) => Prepared;

const operations: Record<string, Record<string, Operation>> = {
	apiRequest: { send: apiRequest.send.prepare },
	article: {
		create: article.create.prepare,
		findOrCreate: article.findOrCreate.prepare,
		get: article.get.prepare,
		getAll: article.getAll.prepare,
		update: article.update.prepare,
	},
	client: {
		create: client.create.prepare,
		findOrCreate: client.findOrCreate.prepare,
		get: client.get.prepare,
		getAll: client.getAll.prepare,
		update: client.update.prepare,
	},
	invoice: {
		create: invoice.create.prepare,
		get: invoice.get.prepare,
		getAll: invoice.getAll.prepare,
	},
	settlement: { create: settlement.create.prepare },
	stockMovement: { getAll: stockMovement.getAll.prepare },
	generalLedger: { getAll: generalLedger.getAll.prepare },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const prepare = operations[resource]?.[operation];
	if (!prepare) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not supported for the resource "${resource}"`,
		);
	}
	const items = this.getInputData();

	// Pass 1: check every item.
	const steps: Array<Prepared | INodeExecutionData> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			// The item's Request Options are read (and checked) once, here; every call is bound to the item.
			const erp = erpFor(this, itemIndex);
			steps.push(withDecimalAmounts(this, itemIndex, prepare.call(this, itemIndex, erp)));
		} catch (error) {
			steps.push(failedItem(this, error, itemIndex));
		}
	}

	// Pass 2: send.
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const step = steps[itemIndex];
		if (typeof step !== 'function') {
			returnData.push(step);
			continue;
		}
		try {
			const result = await step();
			for (const json of Array.isArray(result) ? result : [result]) {
				returnData.push({ json, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			returnData.push(failedItem(this, error, itemIndex));
		}
	}
	return [returnData];
}
