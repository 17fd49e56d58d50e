/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- drives n8n from outside, not a node */
/**
 * The ERP Polling Trigger's catch-up across restarts, in one real n8n (any version): used by
 * test/e2e/polling.test.ts (the default n8n) and test/compat/polling.compat.ts (the older ones).
 *
 * Published workflows on the shortest schedule (every minute), n8n stopped, 25 stock movements
 * with 3 low-stock crossings made in the sandbox, n8n started again. Every movement and every
 * crossing runs exactly once (counted at the sinks the workflows post to, test/e2e/count.ts), and
 * another restart repeats nothing: n8n saves the position with the poll that emits. The control is
 * a watch whose saved position is cleared while n8n is stopped: it reads the journal again and
 * posts duplicates.
 *
 * No step waits for a scheduled poll: n8n runs a poll at every activation and start, which is
 * when the catch-up happens.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from '@jest/globals';

import {
	EXAMPLE_IDS,
	SANDBOX_CREDENTIAL,
	startChatSink,
	wireExample,
} from '../../scripts/examples';
import type { ChatSink, Workflow } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import { keepFilesOnFailure } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { example, sinkReading } from './sinks';
import { chainWorkflow, erp, MINUTE, startE2e, type E2e } from './helpers';

const MOVEMENTS = 'ErpPollMovement1';
const CONTROL = 'ErpPollControl01';

/** Where the scenario's workflows post: low-stock chat messages, movement ids, the control's. */
type PollingSinks = { chat: ChatSink; moves: ChatSink; control: ChatSink };

/**
 * For a describe block: one n8n (`version`, default the default n8n) with the scenario's
 * workflows and `workflows` besides, started in beforeAll and stopped in afterAll, and the
 * scenario as its first test. Returns the file's `files` and the running instance, for more tests.
 */
export function usePollingScenario(options: {
	folderPrefix: string;
	log: Log;
	version?: string;
	workflows?: Workflow[];
}): { files: ReturnType<typeof keepFilesOnFailure>; e2e: () => E2e } {
	const { log } = options;
	const files = keepFilesOnFailure(log);
	let e2e: E2e;
	let sinks: PollingSinks;

	beforeAll(async () => {
		const [chat, moves, control] = await Promise.all([
			startChatSink(),
			startChatSink(),
			startChatSink(),
		]);
		sinks = { chat, moves, control };
		e2e = await startE2e({
			version: options.version,
			folderPrefix: options.folderPrefix,
			log,
			files,
			workflows: () => [...pollingWorkflows(sinks), ...(options.workflows ?? [])],
		});
	}, 60 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await Promise.all(Object.values(sinks ?? {}).map(async (sink) => await sink.close()));
	}, 10 * MINUTE);

	it(
		'after n8n was stopped, 25 movements and 3 crossings run exactly once; a restart repeats nothing; a cleared position repeats everything',
		files.track(async () => await runPollingScenario(e2e, sinks, log)),
		20 * MINUTE,
	);
	return { files, e2e: () => e2e };
}

/** ERP Polling Trigger (every minute) on stock movements, posting each item's id to `url`. */
function movementWorkflow(id: string, url: string, options: Record<string, unknown>) {
	return chainWorkflow(id, `E2E polling: stock movements (${id})`, [
		{
			name: 'Movements',
			type: 'n8n-nodes-erp.erpPollingTrigger',
			credentials: { erpApi: SANDBOX_CREDENTIAL },
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				watch: 'stockMovement',
				options,
			},
		},
		{
			name: 'Post id',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url,
				sendBody: true,
				specifyBody: 'keypair',
				bodyParameters: { parameters: [{ name: 'text', value: '={{ $json.id }}' }] },
				options: {},
			},
		},
	]);
}

/**
 * The scenario's workflows (for startE2e): the example "low stock to chat, by polling", a watch of
 * new stock movements (Start From "Now") and the control (Start From "The Beginning").
 */
function pollingWorkflows(sinks: PollingSinks): Workflow[] {
	return [
		wireExample(example(EXAMPLE_IDS.lowStockByPolling), { chatUrl: sinks.chat.url }),
		movementWorkflow(MOVEMENTS, sinks.moves.url, {}),
		movementWorkflow(CONTROL, sinks.control.url, { startFrom: 'beginning' }),
	];
}

/** Clears a workflow's static data in n8n's database (n8n stopped), with n8n's own Node 24. */
function clearStaticData(e2e: E2e, workflowId: string): void {
	const database = path.join(e2e.userFolder, '.n8n', 'database.sqlite');
	const script = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1]);
const r = db.prepare('UPDATE workflow_entity SET staticData = NULL WHERE id = ?').run(process.argv[2]);
process.stdout.write(String(r.changes));`;
	const changes = execFileSync(e2e.config.env.nodeBin, ['-e', script, database, workflowId], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	assert.equal(changes, '1', `the static data of ${workflowId} was cleared`);
}

/** The stock movement journal's ids, oldest first. */
async function journal(e2e: E2e): Promise<string[]> {
	const ids: string[] = [];
	let cursor = '';
	do {
		const page = await erp(
			e2e.sandbox,
			`/stock/mouvements?limit=100${cursor && `&cursor=${cursor}`}`,
		);
		ids.push(...page.data.map((m: { id: string }) => m.id));
		cursor = page.pagination.next_cursor ?? '';
	} while (cursor);
	return ids;
}

/**
 * The scenario, in a started n8n whose workflows are `pollingWorkflows(sinks)`, none published
 * yet: publish, stop n8n, make 25 movements and 3 crossings, start n8n: each once, in order;
 * restart: nothing again; the control (position cleared) repeats.
 */
async function runPollingScenario(e2e: E2e, sinks: PollingSinks, log: Log): Promise<void> {
	const { chat, moves, control } = sinks;
	const sandbox = e2e.sandbox;
	const make = async (stock: number) =>
		await erp(sandbox, '/articles', {
			method: 'POST',
			body: {
				reference: `POLL-E2E-${stock}-${Date.now()}`,
				designation: `Polled mug ${stock}`,
				prix_ht: 1250,
				tva: 2000,
				stock,
				seuil_alerte: 10,
			},
		});
	const setStock = async (id: string, stock: number) =>
		await erp(sandbox, `/articles/${id}`, { method: 'PATCH', body: { stock } });

	// History before publishing: the control (Start From "The Beginning") posts it.
	const a = await make(30);
	const b = await make(30);
	await setStock(a.id, 25);
	await setStock(b.id, 28);
	const history = await journal(e2e);
	assert.ok(history.length >= 2);

	for (const id of [EXAMPLE_IDS.lowStockByPolling, MOVEMENTS, CONTROL]) await e2e.rest.activate(id);
	await expectCount('control posts of the history', history.length, sinkReading(control));
	assert.deepEqual(control.messages, history);
	assert.deepEqual(
		[moves.messages, chat.messages],
		[[], []],
		'the first activation starts from now',
	);

	log('stopping n8n');
	await e2e.n8n!.stop();
	// 25 movements (stock adjustments), 3 of them crossings of seuil_alerte 10 (marked *).
	for (const stock of [20, 15, 11, 10 /* * */, 8, 6, 12, 14, 9 /* * */, 7, 5])
		await setStock(a.id, stock);
	for (const stock of [26, 24, 22, 20, 18, 16, 14, 12, 11, 10 /* * */, 9, 8, 7, 6])
		await setStock(b.id, stock);
	const made = (await journal(e2e)).slice(history.length);
	assert.equal(made.length, 25);
	type Low = {
		data: { designation: string; reference: string; stock: number; seuil_alerte: number };
	};
	const events = (await (await fetch(`${sandbox.url}/_sandbox/events?type=stock.bas`)).json()) as {
		data: Low[];
	};
	const expectedAlerts = events.data.map(
		({ data }) =>
			`:warning: Low stock: ${data.designation} (${data.reference}) is down to ${data.stock}, alert threshold ${data.seuil_alerte}.`,
	);
	assert.equal(expectedAlerts.length, 3, 'the sandbox saw 3 crossings');
	clearStaticData(e2e, CONTROL);

	log('starting n8n again');
	await e2e.start();
	await expectCount('posted movements', 25, sinkReading(moves));
	assert.deepEqual(moves.messages, made, 'every movement once, in order');
	await expectCount('chat messages', 3, sinkReading(chat));
	assert.deepEqual(chat.messages, expectedAlerts, 'every crossing once, in order');
	// Control: the cleared position reads the journal from the beginning again.
	await expectCount('control posts', history.length * 2 + 25, sinkReading(control));
	assert.ok(new Set(control.messages).size < control.messages.length, 'the control repeats');

	log('restarting n8n: the positions saved with the catch-up hold');
	await e2e.n8n!.stop();
	await e2e.start();
	await expectCount('posted movements after a second restart', 25, sinkReading(moves), {
		quietMs: 10_000,
	});
	await expectCount('chat messages after a second restart', 3, sinkReading(chat), {
		quietMs: 1_000,
	});
}
