/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (polling.queue.ts, polling-durable.queue.ts): the ERP Polling Trigger
 * in n8n's queue mode (scripts/queue-mode.ts): main polls, the 2 workers run the executions. The
 * catch-up scenario of test/e2e/polling-scenario.ts with main as the n8n that is stopped and
 * started: 25 stock movements and 3 low-stock crossings made while main is stopped run exactly
 * once, in order; a restart of main repeats nothing; the control (a position cleared in
 * PostgreSQL while main is stopped) repeats. Then unpublished and published again: it goes on
 * from its position. With `durable`, n8n 2.41's durable poll cursors are on in every process
 * (DURABLE_CURSOR_FLAGS), and the forgotten start is checked too.
 *
 * Each of the two files keeps a deployment of its own, not the shared one (shared.queue.ts): its
 * scenarios stop, restart and kill main, and the durable one runs every process with other n8n
 * settings.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import {
	startedPerWorker,
	startQueueDeployment,
	type QueueDeployment,
} from '../../scripts/queue-mode';
import { postgresPositions } from '../e2e/polling-database';
import { mainKilledDuringCatchUp } from './main-crash';
import { pollingWorkflows, republish, runPollingScenario } from '../e2e/polling-scenario';
import {
	closeSinks,
	DURABLE_CURSOR_FLAGS,
	startPollingSinks,
	timingFor,
	type PollingSinks,
	type PollingTarget,
} from '../e2e/polling-target';

const MINUTE = 60_000;

export function usePollingInQueueMode(durable: boolean): void {
	for (const signal of ['SIGINT', 'SIGTERM'] as const)
		process.once(signal, () => process.exit(130));
	const tag = durable ? 'queue polling, durable cursors' : 'queue polling';
	const log = (line: string) => process.stderr.write(`[${tag}] ${line}\n`);
	let sandbox: SandboxHandle;
	let sinks: PollingSinks | undefined;
	let queue: QueueDeployment | undefined;
	let target: PollingTarget;

	describe(durable ? 'durable poll cursors' : 'the default poll cursors', () => {
		beforeAll(async () => {
			sandbox = await startSandbox({ port: 0 });
			sinks = await startPollingSinks();
			queue = await startQueueDeployment({
				sandboxBaseUrl: sandbox.baseUrl,
				workflows: pollingWorkflows(sinks, durable),
				log,
				extraEnv: durable ? DURABLE_CURSOR_FLAGS : undefined,
			});
			const q = queue;
			target = {
				sandbox,
				rest: () => q.rest,
				stop: q.stopMain,
				start: q.startMain,
				positions: postgresPositions(q),
			};
		}, 45 * MINUTE);

		afterAll(async () => {
			await queue?.stop();
			await sandbox?.close();
			await closeSinks(sinks);
		}, 5 * MINUTE);

		test(
			'queue mode: main polls, workers run; after main was stopped, 25 movements and 3 crossings run exactly once, in order; a restart of main repeats nothing',
			async () => {
				const q = queue!;
				try {
					await runPollingScenario(target, sinks!, log, timingFor(durable));
				} catch (error) {
					log(`failed; the last lines of every log:\n${q.logs(30)}`);
					throw error;
				}
				const counts = startedPerWorker(q);
				process.stdout.write(`# executions started per worker: ${JSON.stringify(counts)}\n`);
				assert.ok(
					counts.reduce((a, b) => a + b, 0) > 0,
					`the workers ran the executions: ${JSON.stringify(counts)}`,
				);
			},
			20 * MINUTE,
		);

		test(
			'queue mode: unpublished, 2 movements made, published again: it goes on from its position',
			async () => await republish(target, sinks!.moves, log),
			5 * MINUTE,
		);

		test(
			'queue mode: kill -9 of main while the catch-up of 20 movements reads its pages, started again: none lost, none twice',
			async () =>
				await mainKilledDuringCatchUp(queue!, target, sinks!.moves, timingFor(durable), log),
			12 * MINUTE,
		);
	});
}
