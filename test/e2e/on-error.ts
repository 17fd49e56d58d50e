/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Settings › On Error in real n8n (issue 40), shared by test/e2e/on-error.test.ts (2.41.1) and
 * test/compat/on-error.compat.ts (1.123.81, 2.33.7): ERP › Article › Get by reference over four
 * items (two known references, an unknown one, an empty one) under each On Error setting, run
 * with n8n's CLI, beside n8n's own HTTP Request node over the same four items (the control: it
 * routes 2 and 2, so the error output's count can be 2).
 */
import assert from 'node:assert/strict';

import { SANDBOX_CREDENTIAL, SANDBOX_DEMO_KEY } from '../../scripts/examples';
import type { Workflow } from '../../scripts/examples';
import { type N8nConfig, n8nExecute } from '../../scripts/n8n-instance';
import type { Log } from '../../scripts/n8n-env';
import type { ApiJson } from './helpers';

/** Two known references, an unknown one (refused by the ERP's answer), an empty one (by the check). */
const ITEMS = [
	{ ref: 'REF-000001', id: 'art_00000001' },
	{ ref: 'REF-000002', id: 'art_00000002' },
	{ ref: 'NO-SUCH-REF', id: 'art_99999999' },
	{ ref: '', id: 'art_99999998' },
];

type Node = Workflow['nodes'][number];

/** A Set node that adds `seen`: the `ref` of the input item n8n pairs each item with. */
export const seenNode = (name: string): Node => ({
	name,
	type: 'n8n-nodes-base.set',
	typeVersion: 3.4,
	parameters: {
		mode: 'manual',
		includeOtherFields: true,
		assignments: {
			assignments: [
				{
					id: `${name}-seen`,
					name: 'seen',
					type: 'string',
					value: "={{ $('Items').item.json.ref }}",
				},
			],
		},
		options: {},
	},
});

export const erpGet = (name: string, onError: string): Node => ({
	name,
	type: 'n8n-nodes-erp.erp',
	typeVersion: 1,
	onError,
	credentials: { erpApi: SANDBOX_CREDENTIAL },
	parameters: {
		resource: 'article',
		operation: 'get',
		articleId: { __rl: true, mode: 'reference', value: '={{ $json.ref }}' },
	},
});

/** Manual Trigger, the four items, then `branches` (node, then what each output feeds). */
export function itemsWorkflow(
	id: string,
	name: string,
	branches: Array<{ node: Node; outputs: Node[][] }>,
): Workflow {
	const nodes: Node[] = [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		{
			name: 'List',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ items: ITEMS }), options: {} },
		},
		{
			name: 'Items',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'items', options: {} },
		},
	];
	const link = (names: string[]) => names.map((node) => ({ node, type: 'main', index: 0 }));
	const connections: Record<string, unknown> = {
		Start: { main: [link(['List'])] },
		List: { main: [link(['Items'])] },
		Items: { main: [link(branches.map((b) => b.node.name))] },
	};
	for (const { node, outputs } of branches) {
		nodes.push(node, ...outputs.flat());
		connections[node.name] = { main: outputs.map((out) => link(out.map((n) => n.name))) };
	}
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node, i) => ({ id: `${id}-${i + 1}`, position: [220 * i, 0], ...node })),
		connections,
	};
}

export const noOp = (name: string): Node => ({
	name,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	parameters: {},
});

/** The four items through ERP (error output), ERP (regular output) and n8n's HTTP Request. */
export function routingWorkflow(id: string, baseUrl: string): Workflow {
	const httpRequest: Node = {
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		onError: 'continueErrorOutput',
		parameters: {
			url: `=${baseUrl}/articles/{{ $json.id }}`,
			sendHeaders: true,
			headerParameters: {
				parameters: [{ name: 'Authorization', value: `Bearer ${SANDBOX_DEMO_KEY}` }],
			},
			options: {},
		},
	};
	return itemsWorkflow(id, 'E2E: On Error, each setting', [
		{
			node: erpGet('ERP error output', 'continueErrorOutput'),
			outputs: [[seenNode('Success')], [seenNode('Failure')]],
		},
		{
			node: erpGet('ERP regular output', 'continueRegularOutput'),
			outputs: [[seenNode('Regular')]],
		},
		{ node: httpRequest, outputs: [[noOp('HTTP success')], [noOp('HTTP failure')]] },
	]);
}

/** The json of the items `node` output on `output` in the run `n8n execute` printed. */
export function jsonOf(run: ApiJson, node: string, output = 0): ApiJson[] {
	const tasks = run.data.resultData.runData[node];
	assert.ok(tasks, `node "${node}" did not run`);
	return (tasks[0].data.main[output] ?? []).map((item: { json: ApiJson }) => item.json);
}

/** The two workflows: each setting with its control, and Stop Workflow. */
export function onErrorWorkflows(ids: { routing: string; stop: string }, baseUrl: string) {
	return [
		routingWorkflow(ids.routing, baseUrl),
		itemsWorkflow(ids.stop, 'E2E: On Error, Stop Workflow', [
			{ node: erpGet('ERP', 'stopWorkflow'), outputs: [[noOp('After')]] },
		]),
	];
}

/**
 * Runs the routing workflow: the control routes 2 and 2; Continue (using error output) sends the
 * two failures to the error output with the input item's fields and the error (its message and
 * the ERP's facts), the two articles to the success output; Continue (regular output) sends all
 * four to the success output; every item paired with its own input item.
 */
export async function checkRouting(config: N8nConfig, id: string, log: Log): Promise<void> {
	const run = await n8nExecute(config, id, log);
	// Control: n8n's own node routes two and two, so the error output's count can be 2.
	assert.equal(jsonOf(run, 'HTTP success').length, 2, 'HTTP Request: success output');
	assert.equal(jsonOf(run, 'HTTP failure').length, 2, 'HTTP Request: error output');

	const success = jsonOf(run, 'Success');
	assert.deepEqual(
		success.map((json) => [json.reference, json.seen]),
		[
			['REF-000001', 'REF-000001'],
			['REF-000002', 'REF-000002'],
		],
	);
	const failure = jsonOf(run, 'Failure');
	assert.deepEqual(
		failure.map((json) => [json.ref, json.id, json.seen]),
		[
			['NO-SUCH-REF', 'art_99999999', 'NO-SUCH-REF'],
			['', 'art_99999998', ''],
		],
		'the failed items, with their input fields, paired with their input',
	);
	assert.match(String(failure[0].error.message), /NO-SUCH-REF/);
	assert.match(String(failure[1].error.message), /^Invalid value for "Article"/);
	assert.equal(failure[1].error.httpCode, null, 'refused before any request');
	for (const json of failure) assert.ok('code' in json.error, JSON.stringify(json));

	const regular = jsonOf(run, 'Regular');
	assert.equal(regular.length, 4, 'Continue (regular output): all four on the success output');
	assert.deepEqual(
		regular.map((json) => [json.error === undefined, json.seen]),
		ITEMS.map((item, k) => [k < 2, item.ref]),
	);
	for (const json of regular.slice(2)) {
		assert.ok('code' in json && 'httpCode' in json, JSON.stringify(json));
	}
}

/** Runs the Stop Workflow workflow: it fails, naming the empty reference's item. */
export async function checkStop(config: N8nConfig, id: string, log: Log): Promise<void> {
	await assert.rejects(n8nExecute(config, id, log), (error: Error) => {
		assert.match(
			error.message,
			/Invalid value for "Article": a non-empty text is required, got "" \[item 3\]/,
		);
		return true;
	});
}
