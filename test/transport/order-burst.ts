/**
 * The order-to-invoice example's ERP part (find or create the client, issue the invoice, record
 * the settlement) as concurrent executions through n8n-core's engine: one execution per order,
 * all in this process, all with one key. Used by pacing-burst.test.ts and benchmark P6.
 */
import type { IDataObject } from 'n8n-workflow';

import type { BurstOrder, BurstPlan } from '../../scripts/order-burst';
import type { RunWorkflowResult } from '../harness';
import { TestCredentials, runWorkflow } from '../harness';

const ERP = 'n8n-nodes-erp.erp';

/** What the example's "Map order lines" node makes of an order (every SKU is a reference here). */
function mapOrder(order: BurstOrder): IDataObject {
	return {
		order_number: order.order_number,
		email: order.customer.email,
		name: order.customer.name,
		paid: order.financial_status === 'paid',
		lines: order.line_items.map((item) => ({ reference: item.sku, quantite: item.quantity })),
	};
}

/** One execution of the example's ERP nodes for one order (same parameters as examples/order-to-invoice.json). */
export async function runOrder(
	credentials: TestCredentials,
	order: BurstOrder,
	options: { workflowId?: string; maxWaitSeconds?: number } = {},
): Promise<RunWorkflowResult> {
	const requestOptions =
		options.maxWaitSeconds === undefined ? {} : { maxWaitSeconds: options.maxWaitSeconds };
	return await runWorkflow({
		workflowId: options.workflowId ?? 'order-to-invoice-burst',
		mode: 'webhook',
		input: [mapOrder(order)],
		credentials,
		nodes: [
			{
				name: 'Find or create client',
				type: ERP,
				parameters: {
					resource: 'client',
					operation: 'findOrCreate',
					email: '={{ $json.email }}',
					nom: '={{ $json.name }}',
					additionalFields: {},
					requestOptions,
				},
			},
			{
				name: 'Issue invoice',
				type: ERP,
				parameters: {
					resource: 'invoice',
					operation: 'create',
					clientId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					linesMode: 'json',
					linesJson: "={{ $('Start').item.json.lines }}",
					additionalFields: { reference_externe: "={{ $('Start').item.json.order_number }}" },
					requestOptions,
				},
			},
			{
				name: 'Record settlement',
				type: ERP,
				parameters: {
					resource: 'settlement',
					operation: 'create',
					invoiceId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					montant: '={{ $json.reste_a_payer }}',
					mode: 'carte',
					additionalFields: { reference: "=Order {{ $('Start').item.json.order_number }}" },
					requestOptions,
				},
			},
		],
	});
}

/** Every order of the plan at once, each its own execution; resolves when all have finished. */
export async function runBurstInProcess(
	baseUrl: string,
	key: string,
	plan: BurstPlan,
	options: { maxWaitSeconds?: number } = {},
): Promise<{ failed: number; errors: string[]; drainMs: number }> {
	const credentials = new TestCredentials({
		erpApi: { apiKey: key, environment: 'sandbox', baseUrl },
	});
	const started = Date.now();
	const results = await Promise.all(
		plan.orders.map((order) => runOrder(credentials, order, options)),
	);
	const drainMs = Date.now() - started;
	const errors = results.filter((r) => !r.success).map((r) => r.error?.message ?? 'failed');
	return { failed: errors.length, errors, drainMs };
}
