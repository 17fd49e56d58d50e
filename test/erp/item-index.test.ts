/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Every operation's error names its item (issue 18): through the real engine against the
// sandbox, two input items of which item 1 is refused, by the API (daily quota used up by item 0,
// a 429 the transport never waits through) and by the input check (a bad request option), and
// the error's context.itemIndex is 1. Controls: the same refusals on item 0 give 0. The list of
// operations comes from the node's description, so a new operation cannot be left out.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { UNPACED } from '../../sandbox';
import type { BaselineIds } from './operations';
import {
	assertEveryOperationCovered,
	baselineParameters,
	configureSandbox,
	createBaselineRecords,
	oneItemCost,
	operations,
} from './operations';
import type { ErpTestEnv } from './setup';
import { startErpTestEnv } from './setup';

let env: ErpTestEnv;
let ids: BaselineIds;
let runCounter = 0;

const configure = async (body: IDataObject) => await configureSandbox(env, body);

/** Runs `name` over `items` input items, each with a fresh `ref`. */
async function run(
	name: string,
	items: number,
	extra: INodeParameters = {},
	input?: IDataObject[],
) {
	return await env.run(
		{ ...baselineParameters(name, ids), ...extra },
		{
			input:
				input ?? Array.from({ length: items }, (_, k) => ({ ref: `IDX-${++runCounter}-${k}` })),
		},
	);
}

type ItemError = Error & { context?: IDataObject; httpCode?: string | null };

function itemIndexOf(error: Error | undefined): unknown {
	return (error as ItemError | undefined)?.context?.itemIndex;
}

/** Item 1 (then, as the control, item 0) refused by the API: the daily quota runs out. */
async function refusedByQuota(name: string): Promise<void> {
	const cost = await oneItemCost(env, name, async () => await run(name, 1));

	// The quota allows exactly item 0's requests: item 1's first request gets 429.
	await configure({ dailyQuota: cost });
	const result = await run(name, 2);
	assert.equal(result.success, false, `${name}: item 1 should have been refused`);
	const error = result.error as ItemError;
	assert.equal(error.name, 'NodeApiError', error.message);
	assert.match(error.message, /daily/i);
	assert.equal(itemIndexOf(error), 1, `${name}: ${error.message}`);

	// Control: the quota used up before item 0, so item 0 is the one refused.
	await configure({ dailyQuota: 1 });
	assert.equal((await env.api('GET', '/articles?limit=1')).status, 200);
	const control = await run(name, 2);
	assert.equal(control.success, false);
	assert.equal(control.error?.name, 'NodeApiError', control.error?.message);
	assert.equal(itemIndexOf(control.error), 0, `${name}: ${control.error?.message}`);
}

beforeAll(async () => {
	env = await startErpTestEnv();
	await configure({ rateLimit: UNPACED });
	ids = await createBaselineRecords(env);
});

afterAll(async () => {
	await env?.close();
});

describe('every operation names its item in its errors', () => {
	test('every operation of the description is under test', () => {
		assertEveryOperationCovered(ids);
	});

	test.each(operations)(
		'%s: refused by the API on item 1 (daily quota), the error says item 1',
		async (name) => {
			try {
				await refusedByQuota(name);
			} finally {
				await configure({ dailyQuota: 100000 });
			}
		},
	);

	test.each(operations)(
		'%s: refused by the input check on item 1, the error says item 1',
		async (name) => {
			const wait = { requestOptions: { maxWaitSeconds: '={{ $json.wait }}' } };
			const before = (await env.stats()).requests;
			for (const bad of [1, 0]) {
				const input = [0, 1].map((k) => ({
					ref: `IDX-${++runCounter}-${k}`,
					wait: k === bad ? -1 : 60,
				}));
				const result = await run(name, 2, wait, input);
				assert.equal(result.success, false, `${name}: item ${bad} should have been refused`);
				const error = result.error as ItemError;
				assert.equal(error.name, 'NodeOperationError', error.message);
				assert.match(
					error.message,
					new RegExp(
						`^Invalid value for "Request Options › Max Rate-Limit Wait \\(Seconds\\)": .* \\[item ${bad}\\]$`,
					),
				);
				assert.equal(itemIndexOf(error), bad, `${name}: ${error.message}`);
			}
			assert.equal((await env.stats()).requests, before, 'refused before any request');
		},
	);
});
