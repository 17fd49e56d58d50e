/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
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
 * when the catch-up happens. With n8n 2.41's durable poll cursors (`durableCursors`, the
 * DURABLE_CURSOR_FLAGS) n8n polls at publication but not at start: the catch-up comes with the
 * first scheduled poll (within a minute), a restart is watched for 90 s (a scheduled poll of
 * every workflow), and the position lives in `poller_state`. A second control there, a watch from
 * now whose saved start is forgotten while n8n is stopped (the state the trigger left before the
 * fix in nodes/ErpPollingTrigger/poll.ts), skips the 25 and starts from now again.
 *
 * `republish`: the movements' workflow unpublished, 2 movements made, published again: the
 * trigger goes on from its position (the 2 run once).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, it } from '@jest/globals';

import { EXAMPLE_IDS, SANDBOX_CREDENTIAL, wireExample } from '../../scripts/examples';
import type { ChatSink, Workflow } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import { keepFilesOnFailure } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { sqlitePositions } from './polling-database';
import {
	closeSinks,
	DURABLE_CURSOR_FLAGS,
	startPollingSinks,
	timingFor,
	type PollingSinks,
	type PollingTarget,
	type Timing,
} from './polling-target';
import { example, sinkReading } from './sinks';
import { chainWorkflow, erp, MINUTE, startE2e, type E2e, type Sandbox } from './helpers';

const MOVEMENTS = 'ErpPollMovement1';
const CONTROL = 'ErpPollControl01';
const FORGOTTEN = 'ErpPollForgotten';

/** One n8n process of test/e2e as the scenario's target. */
function e2eTarget(e2e: E2e): PollingTarget {
	return {
		sandbox: e2e.sandbox,
		rest: () => e2e.rest,
		stop: async () => await e2e.n8n!.stop(),
		start: async () => {
			await e2e.start();
		},
		positions: sqlitePositions(e2e),
	};
}

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
	/** n8n 2.41's durable poll cursors on (DURABLE_CURSOR_FLAGS). */
	durableCursors?: boolean;
	/** Then unpublish and publish the movements' workflow again. */
	republish?: boolean;
}): { files: ReturnType<typeof keepFilesOnFailure>; e2e: () => E2e } {
	const { log } = options;
	const durable = options.durableCursors === true;
	const timing = timingFor(durable);
	const files = keepFilesOnFailure(log);
	let e2e: E2e;
	let sinks: PollingSinks;

	beforeAll(async () => {
		sinks = await startPollingSinks();
		e2e = await startE2e({
			version: options.version,
			folderPrefix: options.folderPrefix,
			log,
			files,
			extraEnv: durable ? DURABLE_CURSOR_FLAGS : undefined,
			workflows: () => [...pollingWorkflows(sinks, durable), ...(options.workflows ?? [])],
		});
	}, 60 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await closeSinks(sinks);
	}, 10 * MINUTE);

	it(
		'after n8n was stopped, 25 movements and 3 crossings run exactly once; a restart repeats nothing; a cleared position repeats everything',
		files.track(async () => await runPollingScenario(e2eTarget(e2e), sinks, log, timing)),
		20 * MINUTE,
	);
	if (options.republish) {
		it(
			'unpublished, 2 movements made, published again: it goes on from its position, the 2 run once',
			files.track(async () => await republish(e2eTarget(e2e), sinks.moves, log)),
			5 * MINUTE,
		);
	}
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
 * new stock movements (Start From "Now"), the control (Start From "The Beginning") and, with
 * durable cursors, the forgotten start (Start From "Now").
 */
export function pollingWorkflows(sinks: PollingSinks, durable: boolean): Workflow[] {
	return [
		wireExample(example(EXAMPLE_IDS.lowStockByPolling), { chatUrl: sinks.chat.url }),
		movementWorkflow(MOVEMENTS, sinks.moves.url, {}),
		movementWorkflow(CONTROL, sinks.control.url, { startFrom: 'beginning' }),
		...(durable ? [movementWorkflow(FORGOTTEN, sinks.forgotten.url, {})] : []),
	];
}

/** The stock movement journal's ids, oldest first. */
export async function journal(sandbox: Sandbox): Promise<string[]> {
	const ids: string[] = [];
	let cursor = '';
	do {
		const page = await erp(sandbox, `/stock/mouvements?limit=100${cursor && `&cursor=${cursor}`}`);
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
export async function runPollingScenario(
	target: PollingTarget,
	sinks: PollingSinks,
	log: Log,
	timing: Timing,
): Promise<void> {
	const { chat, moves, control, forgotten } = sinks;
	const activated = [EXAMPLE_IDS.lowStockByPolling, MOVEMENTS, CONTROL];
	if (timing.durable) activated.push(FORGOTTEN);
	const { sandbox, positions } = target;
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
	const history = await journal(sandbox);
	assert.ok(history.length >= 2);

	for (const id of activated) await target.rest().activate(id);
	await expectCount('control posts of the history', history.length, sinkReading(control));
	assert.deepEqual(control.messages, history);
	assert.deepEqual(
		[moves.messages, chat.messages, forgotten.messages],
		[[], [], []],
		'the first activation starts from now',
	);
	if (timing.durable) {
		// Saved at publication, before any scheduled poll.
		assert.deepEqual(positions.durableCursor(MOVEMENTS), {
			watch: 'stockMovement',
			position: history[history.length - 1],
		});
	}

	log('stopping n8n');
	await target.stop();
	// 25 movements (stock adjustments), 3 of them crossings of seuil_alerte 10 (marked *).
	for (const stock of [20, 15, 11, 10 /* * */, 8, 6, 12, 14, 9 /* * */, 7, 5])
		await setStock(a.id, stock);
	for (const stock of [26, 24, 22, 20, 18, 16, 14, 12, 11, 10 /* * */, 9, 8, 7, 6])
		await setStock(b.id, stock);
	const made = (await journal(sandbox)).slice(history.length);
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
	positions.clear(CONTROL);
	if (timing.durable) positions.clear(FORGOTTEN);

	log('starting n8n again');
	await target.start();
	const catchUp = { deadlineMs: timing.catchUpMs };
	await expectCount('posted movements', 25, sinkReading(moves), catchUp);
	assert.deepEqual(moves.messages, made, 'every movement once, in order');
	await expectCount('chat messages', 3, sinkReading(chat), catchUp);
	assert.deepEqual(chat.messages, expectedAlerts, 'every crossing once, in order');
	// Control: the cleared position reads the journal from the beginning again.
	await expectCount('control posts', history.length * 2 + 25, sinkReading(control), catchUp);
	assert.ok(new Set(control.messages).size < control.messages.length, 'the control repeats');

	log('restarting n8n: the positions saved with the catch-up hold');
	await target.stop();
	await target.start();
	await expectCount('posted movements after a second restart', 25, sinkReading(moves), {
		quietMs: timing.restartQuietMs,
	});
	await expectCount('chat messages after a second restart', 3, sinkReading(chat), {
		quietMs: 1_000,
	});
	if (timing.durable) {
		// Control: a start forgotten while n8n was stopped (what n8n kept before the fix) starts
		// from now again at its first poll: the 25 are skipped.
		assert.deepEqual(forgotten.messages, [], 'the forgotten start posts none of the 25');
		assert.equal(positions.durableCursor(FORGOTTEN).position, made[made.length - 1]);
	}
}

/** Unpublishes the movements' workflow, makes 2 movements, publishes it again: the 2 run once. */
export async function republish(target: PollingTarget, moves: ChatSink, log: Log): Promise<void> {
	const before = moves.messages.length;
	log('unpublishing the movements, 2 movements, publishing again');
	await target.rest().deactivate(MOVEMENTS);
	const sandbox = target.sandbox;
	const known = (await journal(sandbox)).length;
	const article = await erp(sandbox, '/articles', {
		method: 'POST',
		body: {
			reference: `POLL-REPUB-${Date.now()}`,
			designation: 'Republished mug',
			prix_ht: 900,
			tva: 2000,
			stock: 40,
			seuil_alerte: 5,
		},
	});
	for (const stock of [38, 36])
		await erp(sandbox, `/articles/${article.id}`, { method: 'PATCH', body: { stock } });
	const made = (await journal(sandbox)).slice(known);
	assert.ok(made.length >= 2);
	await target.rest().activate(MOVEMENTS);
	await expectCount(
		'movements posted after publishing again',
		before + made.length,
		sinkReading(moves),
		{
			quietMs: 10_000,
		},
	);
	assert.deepEqual(moves.messages.slice(before), made, 'from its position: each once, in order');
}
