/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Paired items in real n8n (issue 40, item 3): a later node's `$('Items').item` resolves to the
 * input item each output item came from, for the operations that answer other than one item per
 * input: Get Many (two records per input item), Find or Create, API Request › Send listing items
 * (two per input item). Each workflow runs as the editor runs it (`POST /rest/workflows/:id/run`
 * from its Manual Trigger), on the run's shared n8n. Control: n8n's Code node returning new items
 * without pairing them breaks the same expression (the run fails, naming the paired item), so a
 * lost pairing cannot pass unseen.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { SANDBOX_CREDENTIAL, type Workflow } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, n8nExecute, skipE2e } from '../../scripts/n8n-instance';
import { UNPACED } from '../../sandbox';
import { baselineParameters } from '../erp/operations';
import { seenNode } from './on-error';
import { chainWorkflow, e2eLog, MINUTE, startE2e, type ApiJson, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e paired items');

/** Two input items, each with a fresh `ref` (Find or Create makes a client from it). */
const REFS = [0, 1].map((k) => `PAIR-${Date.now()}-${k}`);

/** The operations, the ERP node's parameters (two records per input for the lists), and how many output items each input gives. */
const CASES = [
	{ id: 'ErpE2ePairedGet1', name: 'article.getAll', perInput: 2 },
	{ id: 'ErpE2ePairedFoc1', name: 'client.findOrCreate', perInput: 1 },
	{ id: 'ErpE2ePairedApi1', name: 'apiRequest.send', perInput: 2 },
] as const;
const CONTROL_ID = 'ErpE2ePairedCtl1';
const IDS = { article: 'art_00000001', client: 'cli_00000001', invoice: 'inv_00000001' };

/** Manual Trigger, the two items, `node`, then Seen. */
function pairedWorkflow(id: string, node: Workflow['nodes'][number]): Workflow {
	return chainWorkflow(id, `E2E: paired items through ${node.name}`, [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
		{
			name: 'List',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'raw',
				jsonOutput: JSON.stringify({ items: REFS.map((ref) => ({ ref })) }),
				options: {},
			},
		},
		{
			name: 'Items',
			type: 'n8n-nodes-base.splitOut',
			parameters: { fieldToSplitOut: 'items', options: {} },
		},
		node,
		seenNode('Seen'),
	]);
}

(SKIP ? describe.skip : describe)(`paired items in real n8n ${N8N_VERSION}`, () => {
	let e2e: E2e;
	const files = keepFilesOnFailure(log);

	beforeAll(async () => {
		e2e = await startE2e({
			folderPrefix: 'n8n-nodes-erp-e2e-paired-',
			log,
			files,
			shared: true,
			sandbox: { rateLimit: UNPACED },
			workflows: () => [
				...CASES.map(({ id, name }) =>
					pairedWorkflow(id, {
						name: 'ERP',
						type: 'n8n-nodes-erp.erp',
						typeVersion: 1,
						credentials: { erpApi: SANDBOX_CREDENTIAL },
						parameters: baselineParameters(name, IDS, 2),
					}),
				),
				pairedWorkflow(CONTROL_ID, {
					name: 'Unpaired',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					parameters: {
						jsCode: 'return [{ json: { a: 1 } }, { json: { a: 2 } }, { json: { a: 3 } }];',
					},
				}),
			],
		});
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
	}, 10 * MINUTE);

	for (const { id, name, perInput } of CASES) {
		it(
			`${name}: each output item is paired with the input item it came from`,
			files.track(async () => {
				// As the editor runs it (n8nExecute); a run that fails is rejected.
				const { data } = await n8nExecute(e2e.config, id, log);
				const items = data.resultData.runData.Seen[0].data.main[0] as Array<{ json: ApiJson }>;
				const pairs = items.map((item) => item.json.seen);
				log(`${name}: ${items.length} items, seen ${JSON.stringify(pairs)}`);
				assert.deepEqual(
					pairs,
					REFS.flatMap((ref) => Array.from({ length: perInput }, () => ref)),
				);
			}),
			10 * MINUTE,
		);
	}

	it(
		'control: a node that loses the pairing makes the same expression fail',
		files.track(async () => {
			await assert.rejects(n8nExecute(e2e.config, CONTROL_ID, log), (error: Error) => {
				log(`control: ${error.message}`);
				assert.match(error.message, /paired item|Paired item/i);
				return true;
			});
		}),
		10 * MINUTE,
	);
});
