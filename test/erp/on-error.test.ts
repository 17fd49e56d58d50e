/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Settings › On Error, as n8n's own nodes behave (issue 40), for every operation and both passes
// (the input check, item 1 refused by a bad request option; the request, item 1 refused by the
// ERP: the daily quota used up by item 0), through n8n-core's engine against the sandbox:
// - Stop Workflow: the execution fails, the error names item 1, nothing runs after the node;
// - Continue (regular output): every item on the success output, the failed one with `error`,
//   `code` and `httpCode` (as before);
// - Continue (using error output): only the failed item on the error output, with the input
//   item's fields and `error: { message, code, httpCode, ... }`; the others on the success output.
// Each output feeds a node that reads `$('Start').item`, so the pairing of every item (Get Many
// and API Request's List Items return two records per input item) is checked as a later node
// sees it.
// Controls: what n8n-core does with the error item this node built before (it stays on the
// success output) and with an item carrying `error` as an object (moved, but its json replaced).
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	OnError,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { UNPACED } from '../../sandbox';
import type { RunWorkflowResult } from '../harness';
import { runWorkflow } from '../harness';
import { testNodeDescription } from '../harness/fixtures';
import type { BaselineIds } from './operations';
import {
	assertEveryOperationCovered,
	baselineParameters,
	configureSandbox,
	createBaselineRecords,
	isList,
	oneItemCost,
	operations,
} from './operations';
import { PAIRED_ECHO_TYPE, START_REF, pairedEchoNode } from './pairedEcho';
import type { ErpTestEnv } from './setup';
import { ERP, startErpTestEnv } from './setup';

let env: ErpTestEnv;
let ids: BaselineIds;
let runCounter = 0;

const MODES: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
/** Records per input item a list returns here (several, to check their pairing). */
const LIST_SIZE = 2;

/** The ERP node (parameters, On Error) and two later nodes: "Success" (output 0), "Failure" (1). */
async function runThrough(
	nodeType: string,
	parameters: INodeParameters,
	onError: OnError,
	input: IDataObject[],
	extraNodeTypes: Record<string, INodeType> = {},
): Promise<RunWorkflowResult> {
	const later = { type: PAIRED_ECHO_TYPE, parameters: { seen: START_REF } };
	return await runWorkflow({
		nodes: [
			{ name: 'ERP', type: nodeType, parameters, onError },
			{ name: 'Success', ...later },
			{ name: 'Failure', ...later },
		],
		connections: [
			['ERP', 'Success', 0],
			['ERP', 'Failure', 1],
		],
		input,
		credentials: env.credentials,
		workflowId: `on-error-${++runCounter}`,
		extraNodeTypes: { [PAIRED_ECHO_TYPE]: pairedEchoNode, ...extraNodeTypes },
	});
}

const freshInput = (n: number) =>
	Array.from({ length: n }, (_, k) => ({ ref: `ONE-${++runCounter}-${k}`, position: k }));

/** The json of what node `name` output on `output`, or [] when it did not run. */
function outputOf(result: RunWorkflowResult, name: string, output = 0): IDataObject[] {
	return result.runData[name] ? result.output(name, output) : [];
}

interface Failure {
	/** The failed item's message. */
	message: RegExp;
	/** The ERP's facts: the HTTP status, null when nothing was sent. */
	httpCode: number | null;
}

/** Checks one run of `name` in `mode` over `input`, in which exactly item `failed` failed. */
function checkRun(
	name: string,
	mode: OnError,
	result: RunWorkflowResult,
	input: IDataObject[],
	failed: number,
	failure: Failure,
): void {
	const at = `${name} (${mode})`;
	const perItem = isList(name) ? LIST_SIZE : 1;
	const succeeded = input.map((_, k) => k).filter((k) => k !== failed);
	if (mode === 'stopWorkflow') {
		assert.equal(result.success, false, `${at}: the execution should fail`);
		const error = result.error as Error & { context?: IDataObject };
		assert.match(error.message, failure.message, at);
		assert.equal(error.context?.itemIndex, failed, `${at}: ${error.message}`);
		assert.equal(result.runData.Success, undefined, `${at}: nothing runs after the node`);
		return;
	}
	assert.equal(result.success, true, `${at}: ${result.error?.message}`);
	const items = result.items('ERP', 0);
	const failedItems = mode === 'continueErrorOutput' ? result.items('ERP', 1) : [];
	const successItems = items.filter((item) => item.json.error === undefined);
	// Success output: every record, paired with its own input item, as a later node sees it.
	assert.equal(successItems.length, succeeded.length * perItem, `${at}: success items`);
	assert.deepEqual(
		successItems.map((item) => (item.pairedItem as { item: number }).item),
		succeeded.flatMap((k) => Array<number>(perItem).fill(k)),
		`${at}: pairing of the success items`,
	);
	const seenOnSuccess = outputOf(result, 'Success')
		.filter((json) => json.error === undefined)
		.map((json) => json.seen);
	assert.deepEqual(
		seenOnSuccess,
		succeeded.flatMap((k) => Array<unknown>(perItem).fill(input[k].ref)),
		`${at}: $('Start').item after the success output`,
	);

	// The failed item: on the error output (with the input's fields), or among the successes.
	const failedOnes =
		mode === 'continueErrorOutput'
			? failedItems
			: items.filter((item) => item.json.error !== undefined);
	assert.equal(failedOnes.length, 1, `${at}: exactly one failed item`);
	assert.equal(items.length, successItems.length + (mode === 'continueErrorOutput' ? 0 : 1), at);
	const [item] = failedOnes;
	assert.deepEqual(item.pairedItem, { item: failed }, `${at}: the failed item's pairing`);
	const facts =
		mode === 'continueErrorOutput' ? (item.json.error as IDataObject) : (item.json as IDataObject);
	assert.match(
		String(mode === 'continueErrorOutput' ? facts.message : facts.error),
		failure.message,
		at,
	);
	assert.equal(facts.httpCode, failure.httpCode, `${at}: httpCode ${JSON.stringify(item.json)}`);
	assert.equal(facts.code === null, failure.httpCode === null, `${at}: code`);
	const failureSeen = outputOf(result, mode === 'continueErrorOutput' ? 'Failure' : 'Success')
		.filter((json) => json.error !== undefined)
		.map((json) => json.seen);
	assert.deepEqual(failureSeen, [input[failed].ref], `${at}: $('Start').item after the failure`);
	if (mode === 'continueErrorOutput') {
		// n8n gives the error output's item the input item's fields.
		assert.deepEqual(
			item.json,
			{ ...input[failed], error: facts },
			`${at}: the input's fields, the error and its facts`,
		);
	} else {
		assert.equal(outputOf(result, 'Failure').length, 0, `${at}: nothing on the error output`);
	}
}

beforeAll(async () => {
	env = await startErpTestEnv();
	await configureSandbox(env, { rateLimit: UNPACED });
	ids = await createBaselineRecords(env);
});

afterAll(async () => {
	await env?.close();
});

describe('On Error: every operation routes its failed items as n8n’s own nodes do', () => {
	test('every operation of the description is under test', () => {
		assertEveryOperationCovered(ids);
	});

	test.each(operations)('%s: item 1 refused by the input check', async (name) => {
		const wait = { requestOptions: { maxWaitSeconds: '={{ $json.wait }}' } };
		const parameters = { ...baselineParameters(name, ids, LIST_SIZE), ...wait };
		for (const mode of MODES) {
			const input = freshInput(3).map((json, k) => ({ ...json, wait: k === 1 ? -1 : 60 }));
			const result = await runThrough(ERP, parameters, mode, input);
			checkRun(name, mode, result, input, 1, {
				message: /^Invalid value for "Request Options › Max Rate-Limit Wait \(Seconds\)"/,
				httpCode: null,
			});
		}
	});

	test.each(operations)('%s: item 1 refused by the ERP (daily quota)', async (name) => {
		const parameters = baselineParameters(name, ids, LIST_SIZE);
		try {
			const cost = await oneItemCost(
				env,
				name,
				async () => await runThrough(ERP, parameters, 'stopWorkflow', freshInput(1)),
			);
			for (const mode of MODES) {
				// The quota allows exactly item 0's requests: item 1's first request gets 429.
				await configureSandbox(env, { dailyQuota: cost });
				const input = freshInput(2);
				const result = await runThrough(ERP, parameters, mode, input);
				checkRun(name, mode, result, input, 1, { message: /daily/i, httpCode: 429 });
			}
		} finally {
			await configureSandbox(env, { dailyQuota: 100000 });
		}
	});
});

/** A node that fails item 1 with the item `failure` builds (the ERP's facts in its json). */
function failingNode(failure: (ctx: IExecuteFunctions) => INodeExecutionData): INodeType {
	return {
		description: testNodeDescription('failing', 'Failing', { properties: [] }),
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return [
				this.getInputData().map((item, k) =>
					k === 1 ? failure(this) : { json: item.json, pairedItem: { item: k } },
				),
			];
		},
	};
}

describe('controls: what n8n-core does with other shapes of failed item', () => {
	const FAILING = 'test.failing';
	const apiError = (ctx: IExecuteFunctions) =>
		new NodeApiError(ctx.getNode(), { message: 'refused' }, { httpCode: '422', itemIndex: 1 });

	test("the node's former error item (facts beside `error`) stays on the success output", async () => {
		const failing = failingNode(() => ({
			json: { error: 'refused', code: 'validation_error', httpCode: 422 },
			pairedItem: { item: 1 },
		}));
		const input = freshInput(3);
		const result = await runThrough(FAILING, {}, 'continueErrorOutput', input, {
			[FAILING]: failing,
		});
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.items('ERP', 0).length, 3, 'all three on the success output');
		assert.equal(result.items('ERP', 1).length, 0, 'nothing on the error output');
	});

	test('an item carrying `error` as an object is moved, but loses the facts and the input', async () => {
		const failing = failingNode((ctx) => ({
			json: { error: 'refused', code: 'validation_error', httpCode: 422 },
			error: apiError(ctx),
			pairedItem: { item: 1 },
		}));
		const input = freshInput(3);
		const result = await runThrough(FAILING, {}, 'continueErrorOutput', input, {
			[FAILING]: failing,
		});
		assert.equal(result.success, true, result.error?.message);
		assert.equal(result.items('ERP', 0).length, 2);
		const moved = result.output('ERP', 1);
		assert.equal(moved.length, 1);
		assert.deepEqual(Object.keys(moved[0]), ['error'], JSON.stringify(moved[0]));
	});
});
