/**
 * The order-to-invoice example's ERP part (find or create the client, issue the invoice, record
 * the settlement) as concurrent executions through n8n-core's engine: one execution per order,
 * all in this process, all with one key. Used by pacing-burst.ts and benchmark P6.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { BurstOrder, BurstPlan } from '../../scripts/order-burst';
import type { NodeSpec, RunWorkflowResult } from '../harness';
import { TestCredentials, runWorkflow } from '../harness';

const ERP = 'n8n-nodes-erp.erp';

/** What the example's "Map order lines" node makes of an order (every SKU is a reference here). */
export function mapOrder(order: BurstOrder): IDataObject {
	return {
		order_number: order.order_number,
		email: order.customer.email,
		name: order.customer.name,
		paid: order.financial_status === 'paid',
		lines: order.line_items.map((item) => ({ reference: item.sku, quantite: item.quantity })),
	};
}

/** A resource locator by ID. */
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/**
 * The example's ERP nodes, with the same parameters as examples/order-to-invoice.json, on the
 * items mapOrder makes: find or create the client, issue the invoice, record the settlement.
 */
export function orderToInvoiceNodes(requestOptions: INodeParameters = {}): NodeSpec[] {
	const erp = (name: string, parameters: INodeParameters): NodeSpec => ({
		name,
		type: ERP,
		parameters: { ...parameters, requestOptions },
	});
	const start = "$('Start').item.json";
	return [
		erp('Find or create client', {
			resource: 'client',
			operation: 'findOrCreate',
			email: '={{ $json.email }}',
			nom: '={{ $json.name }}',
			additionalFields: {},
		}),
		erp('Issue invoice', {
			resource: 'invoice',
			operation: 'create',
			clientId: byId('={{ $json.id }}'),
			linesMode: 'json',
			linesJson: `={{ ${start}.lines }}`,
			additionalFields: { reference_externe: `={{ ${start}.order_number }}` },
		}),
		erp('Record settlement', {
			resource: 'settlement',
			operation: 'create',
			invoiceId: byId('={{ $json.id }}'),
			montant: '={{ $json.total_ttc }}',
			mode: 'carte',
			additionalFields: { reference: `=Order {{ ${start}.order_number }}` },
		}),
	];
}

/** One execution of the example's ERP nodes for one order. */
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
		nodes: orderToInvoiceNodes(requestOptions),
	});
}

/** Every order of the plan at once, each its own execution; resolves when all have finished. */
export async function runBurstInProcess(
	baseUrl: string,
	key: string,
	plan: BurstPlan,
	/** `rateLimitPerMinute`: the credential's Rate Limit (Requests per Minute). */
	options: { maxWaitSeconds?: number; rateLimitPerMinute?: number } = {},
): Promise<{ failed: number; errors: string[]; drainMs: number }> {
	const rate = options.rateLimitPerMinute;
	const credentials = new TestCredentials({
		erpApi: {
			apiKey: key,
			environment: 'sandbox',
			baseUrl,
			...(rate === undefined ? {} : { rateLimitPerMinute: rate }),
		},
	});
	const started = Date.now();
	const results = await Promise.all(
		plan.orders.map((order) => runOrder(credentials, order, options)),
	);
	const drainMs = Date.now() - started;
	const errors = results.filter((r) => !r.success).map((r) => r.error?.message ?? 'failed');
	return { failed: errors.length, errors, drainMs };
}
