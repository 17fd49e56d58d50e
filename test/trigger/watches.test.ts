/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The watches (nodes/shared/watches) as units: one table that the ERP Polling Trigger's Watch
// parameter and watch parameters come from, and a watch reused by another node to read "the events
// since a position" (as the ERP Trigger would to catch up webhook events missed while n8n was
// down): a test node runs readAfter and the watch's items in an execution, through n8n-core
// against the sandbox, and its items are the sandbox's own events of the same type.
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
} from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { ErpPollingTrigger } from '../../nodes/ErpPollingTrigger/ErpPollingTrigger.node';
import {
	authenticationDescription,
	erpCredentialsDescription,
} from '../../nodes/shared/descriptions';
import { readAfter, WATCH_OPTIONS, WATCHES, watchNamed } from '../../nodes/shared/watches';
import { runWorkflow } from '../harness';
import { testNodeDescription } from '../harness/fixtures';
import {
	idsAfter,
	newArticle,
	newClient,
	newInvoice,
	pay,
	sandboxEvents,
	setStock,
	useSandbox,
} from './polling-helpers';

describe('the watch table', () => {
	const node = new ErpPollingTrigger().description;
	const property = (name: string) => node.properties.find((p) => p.name === name);

	it('is where the Watch parameter and the watch parameters come from', () => {
		for (const [name, watch] of Object.entries(WATCHES)) assert.equal(watch.name, name);
		assert.deepEqual(property('watch')?.options, WATCH_OPTIONS);
		assert.deepEqual(
			WATCH_OPTIONS.map((option) => option.value).sort(),
			Object.keys(WATCHES).sort(),
		);
		for (const watch of Object.values(WATCHES)) {
			for (const own of watch.properties) {
				const shown = property(own.name);
				assert.ok(shown, `${watch.name}: ${own.name} is a parameter of the node`);
				assert.deepEqual(shown.displayOptions?.show?.watch, [watch.name], own.name);
			}
		}
		assert.equal(watchNamed('orders'), undefined);
		assert.equal(watchNamed('toString'), undefined);
	});
});

/** `test.catchUp`: the events of a watch since a position, read in an execution (not a poll). */
const CATCH_UP = 'test.catchUp';
const text = (name: string): INodeProperties => ({
	displayName: name,
	name,
	type: 'string',
	default: '',
});
const catchUpNode: INodeType = {
	description: testNodeDescription('catchUp', 'Catch Up (test)', {
		credentials: erpCredentialsDescription,
		// Watch (a name), Position (an id, or empty for the start) and State (JSON).
		properties: [authenticationDescription, text('watch'), text('position'), text('state')],
	}),
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const watch = watchNamed(this.getNodeParameter('watch', 0));
		if (watch === undefined) throw new Error('unknown watch');
		const position = (this.getNodeParameter('position', 0) as string) || undefined;
		const state = JSON.parse(this.getNodeParameter('state', 0) as string) as IDataObject;
		const before = deepCopy(state);
		const options = watch.readOptions({
			value: (_name, fallback) => fallback,
			at: (name) => ({ node: this.getNode(), label: name }),
		});
		const read = await readAfter(this, watch.path, {}, position);
		const step = await watch.items(this, read.items, options, state);
		assert.deepEqual(state, before, 'items() changes no saved state');
		return [[{ json: { items: step.items, state: step.state, position: read.position } }]];
	},
};

const env = useSandbox();

async function catchUp(watch: string, position: unknown, state: IDataObject = {}) {
	const result = await runWorkflow({
		nodes: [
			{
				name: 'Catch Up',
				type: CATCH_UP,
				parameters: { watch, position: String(position ?? ''), state: JSON.stringify(state) },
			},
		],
		credentials: env.credentials,
		extraNodeTypes: { [CATCH_UP]: catchUpNode },
	});
	assert.equal(result.success, true, result.error?.message);
	return result.output('Catch Up')[0] as {
		items: IDataObject[];
		state: IDataObject;
		position?: string;
	};
}

const last = async (path: string) => (await idsAfter(env.sandbox, path)).pop();

describe('a watch reused to read the events since a position', () => {
	it('vente.creee from the invoices', async () => {
		const client = await newClient(env.sandbox);
		const article = await newArticle(env.sandbox, { stock: 100 });
		const position = await last('/factures');
		const made = [
			await newInvoice(env.sandbox, client.id, article.id),
			await newInvoice(env.sandbox, client.id, article.id),
		];
		const { items } = await catchUp('invoice', position);
		assert.deepEqual(
			items.map((item) => [item.type, item.id]),
			made.map((invoice) => ['vente.creee', invoice.id]),
		);
		const events = (await sandboxEvents(env.sandbox, 'vente.creee')).slice(-2);
		assert.deepEqual(
			items.map((item) => (item.data as IDataObject).id),
			events.map((event) => event.id),
		);
	});

	it('facture.payee: the state goes in and comes back, never changed in place', async () => {
		const client = await newClient(env.sandbox);
		const article = await newArticle(env.sandbox, { stock: 100 });
		const position = await last('/factures');
		const invoice = await newInvoice(env.sandbox, client.id, article.id);
		const first = await catchUp('invoicePaid', position);
		assert.deepEqual(first.items, [], 'not paid yet');
		assert.deepEqual(first.state, { open: [invoice.id] });
		await pay(env.sandbox, invoice);
		const second = await catchUp('invoicePaid', first.position, first.state);
		assert.deepEqual(
			second.items.map((item) => [item.type, item.id]),
			[['facture.payee', invoice.id]],
		);
		assert.deepEqual(second.state, { open: [] });
		const [event] = (await sandboxEvents(env.sandbox, 'facture.payee')).slice(-1);
		assert.equal(event.id, invoice.id);
		assert.equal((second.items[0].data as IDataObject).statut, 'payee');
	});

	it('stock.bas from the movement journal', async () => {
		const article = await newArticle(env.sandbox, { stock: 20, seuil_alerte: 10 });
		const position = await last('/stock/mouvements');
		await setStock(env.sandbox, article.id, 8);
		await setStock(env.sandbox, article.id, 30);
		await setStock(env.sandbox, article.id, 5);
		const { items } = await catchUp('lowStock', position);
		const events = (await sandboxEvents(env.sandbox, 'stock.bas')).filter(
			(event) => event.article_id === article.id,
		);
		assert.equal(events.length, 2);
		assert.deepEqual(
			items.map((item) => item.data),
			events,
		);
	});
});
