/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Settings › On Error in real n8n (issue 40), run with n8n's CLI, then the order example
 * published:
 * - Continue (using error output): ERP › Article › Get by reference over four items (two known
 *   references, an unknown one, an empty one): the two failures on the error output, with the
 *   input item's fields, the message and the ERP's facts in `details`; the two articles on the
 *   success output. Control: n8n's own HTTP Request node, over the same four items, routes 2 and 2.
 * - Continue (regular output): the four on the success output, the failures with `error`,
 *   `code` and `httpCode`.
 * - Stop Workflow: the execution fails, naming the item.
 * - Pairing: on each output, a Set node's `$('Items').item` is the item's own input item.
 * - The order example: a bad order (422) and the ERP busy (503) each end in a failed
 *   execution naming the order; control: a good order's execution succeeds.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import {
	EXAMPLE_IDS,
	SANDBOX_CREDENTIAL,
	SANDBOX_DEMO_KEY,
	loadExample,
} from '../../scripts/examples';
import type { Workflow } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, n8nExecute, skipE2e } from '../../scripts/n8n-instance';
import { expectRuns } from './count';
import { e2eLog, MINUTE, startE2e, type ApiJson, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e on-error');

const IDS = { routing: 'ErpE2eOnError001', stop: 'ErpE2eOnError002' };
const example = loadExample(EXAMPLE_IDS.orderToInvoice);

/** Two known references, an unknown one (refused by the ERP's answer), an empty one (by the check). */
const ITEMS = [
	{ ref: 'REF-000001', id: 'art_00000001' },
	{ ref: 'REF-000002', id: 'art_00000002' },
	{ ref: 'NO-SUCH-REF', id: 'art_99999999' },
	{ ref: '', id: 'art_99999998' },
];

type Node = Workflow['nodes'][number];

/** A Set node that adds `seen`: the `ref` of the input item n8n pairs each item with. */
const seenNode = (name: string): Node => ({
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

const erpGet = (name: string, onError: string): Node => ({
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
function itemsWorkflow(
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

const noOp = (name: string): Node => ({
	name,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	parameters: {},
});

function routingWorkflow(baseUrl: string): Workflow {
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
	return itemsWorkflow(IDS.routing, 'E2E: On Error, each setting', [
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
function jsonOf(run: ApiJson, node: string, output = 0): ApiJson[] {
	const tasks = run.data.resultData.runData[node];
	assert.ok(tasks, `node "${node}" did not run`);
	return (tasks[0].data.main[output] ?? []).map((item: { json: ApiJson }) => item.json);
}

(SKIP ? describe.skip : describe)(
	`On Error and failed executions in real n8n ${N8N_VERSION}`,
	() => {
		let e2e: E2e;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-on-error-',
				log,
				files,
				start: false,
				workflows: (sandbox) => [
					routingWorkflow(sandbox.baseUrl),
					itemsWorkflow(IDS.stop, 'E2E: On Error, Stop Workflow', [
						{ node: erpGet('ERP', 'stopWorkflow'), outputs: [[noOp('After')]] },
					]),
					example,
				],
			});
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
		}, 80 * MINUTE);

		it(
			'each On Error setting routes the failed items as n8n’s own nodes do, each item paired with its input',
			track(async () => {
				const run = await n8nExecute(e2e.config, IDS.routing, log);
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
				assert.match(String(failure[0].error), /NO-SUCH-REF/);
				assert.match(String(failure[1].error), /^Invalid value for "Article"/);
				assert.equal(failure[1].details.httpCode, null, 'refused before any request');
				for (const json of failure) assert.ok('code' in json.details, JSON.stringify(json));

				const regular = jsonOf(run, 'Regular');
				assert.equal(
					regular.length,
					4,
					'Continue (regular output): all four on the success output',
				);
				assert.deepEqual(
					regular.map((json) => [json.error === undefined, json.seen]),
					ITEMS.map((item, k) => [k < 2, item.ref]),
				);
				for (const json of regular.slice(2)) {
					assert.ok('code' in json && 'httpCode' in json, JSON.stringify(json));
				}
			}),
			20 * MINUTE,
		);

		it(
			'Stop Workflow: the execution fails, naming the item (the empty reference: every item is checked before any is sent)',
			track(async () => {
				await assert.rejects(n8nExecute(e2e.config, IDS.stop, log), (error: Error) => {
					assert.match(
						error.message,
						/Invalid value for "Article": a non-empty text is required, got "" \[item 3\]/,
					);
					return true;
				});
			}),
			20 * MINUTE,
		);

		it(
			'the order example: after answering 422 or 503 the execution fails, naming the order (control: a good order succeeds)',
			track(async () => {
				await e2e.start();
				await e2e.rest.activate(example.id);
				const path = String(
					example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path,
				);
				const send = async (number: string, email: string) => {
					const response = await fetch(`${e2e.n8n!.url}/webhook/${path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({
							order_number: number,
							financial_status: 'pending',
							customer: { email, name: 'On Error' },
							line_items: [{ sku: 'MUG-BLUE', quantity: 1 }],
						}),
						signal: AbortSignal.timeout(3 * MINUTE),
					});
					log(
						`order ${number} answered ${response.status}: ${(await response.text()).slice(0, 200)}`,
					);
					return response.status;
				};
				assert.equal(await send('E2E-40-GOOD', 'good@on-error.test'), 200);
				assert.equal(await send('E2E-40-BAD', 'not-an-email'), 422);
				const config = async (body: unknown) =>
					await fetch(`${e2e.sandbox.url}/_sandbox/config`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify(body),
					});
				await config({ rateLimit: { limit: 1, windowSeconds: 3600 } });
				await fetch(`${e2e.sandbox.baseUrl}/articles?limit=1`, {
					headers: { Authorization: `Bearer ${SANDBOX_DEMO_KEY}` },
				}); // the hour's one request
				try {
					assert.equal(await send('E2E-40-BUSY', 'busy@on-error.test'), 503);
				} finally {
					await config({ rateLimit: { limit: 100, windowSeconds: 60 } });
				}

				const runs = await expectRuns(e2e.rest, example.id, 3);
				const outcome: Record<string, string> = {};
				for (const { id, status } of runs) {
					const errors = await e2e.rest.executionErrors(id);
					const number = /Order (E2E-40-\w+)/.exec(errors.join(' '))?.[1] ?? 'no order named';
					outcome[status === 'success' ? 'success' : number] = `${status}: ${errors.join(' | ')}`;
				}
				log(JSON.stringify(outcome));
				assert.deepEqual(Object.keys(outcome).sort(), ['E2E-40-BAD', 'E2E-40-BUSY', 'success']);
				assert.match(
					outcome['E2E-40-BAD'],
					/^error: .*Order E2E-40-BAD refused \(the shop was answered 422\): Invalid value for "Email"/,
				);
				assert.match(
					outcome['E2E-40-BUSY'],
					/^error: .*Order E2E-40-BUSY not invoiced \(the shop was answered 503/,
				);
			}),
			30 * MINUTE,
		);
	},
);
