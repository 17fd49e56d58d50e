/**
 * What the polling scenario (test/e2e/polling-scenario.ts) needs from where it runs: the sinks its
 * workflows post to, the n8n that polls (one process, or queue mode's main), how long it waits,
 * and n8n 2.41's durable poll cursor flags.
 */
import { startChatSink, type ChatSink } from '../../scripts/examples';
import type { N8nRest } from '../../scripts/n8n-instance';
import type { Sandbox } from './helpers';
import { MINUTE } from './helpers';
import type { SavedPositions } from './polling-database';

/** n8n 2.41's durable poll cursors: the flag and the three it needs (poll-cursor.service.js). */
export const DURABLE_CURSOR_FLAGS = {
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

/**
 * Where the scenario's workflows post: low-stock chat messages, movement ids, the control's, and
 * (durable cursors) the forgotten start's.
 */
export type PollingSinks = {
	chat: ChatSink;
	moves: ChatSink;
	control: ChatSink;
	forgotten: ChatSink;
};

/** Starts the scenario's sinks (close them with `closeSinks`). */
export async function startPollingSinks(): Promise<PollingSinks> {
	const [chat, moves, control, forgotten] = await Promise.all(
		[1, 2, 3, 4].map(async () => await startChatSink()),
	);
	return { chat, moves, control, forgotten };
}

export async function closeSinks(sinks: PollingSinks | undefined): Promise<void> {
	await Promise.all(Object.values(sinks ?? {}).map(async (sink) => await sink.close()));
}

/** How long the scenario waits for what n8n does after a start. */
export type Timing = { durable: boolean; catchUpMs: number; restartQuietMs: number };

export function timingFor(durable: boolean): Timing {
	return durable
		? { durable, catchUpMs: 3 * MINUTE, restartQuietMs: 90_000 }
		: { durable, catchUpMs: MINUTE, restartQuietMs: 10_000 };
}

/**
 * The n8n the scenario runs in, with the polls: one n8n process (test/e2e), or queue mode's main
 * (test/queue-mode), whose workers run the executions.
 */
export type PollingTarget = {
	sandbox: Sandbox;
	/** n8n's REST API, signed in as the owner (after a start too). */
	rest(): N8nRest;
	/** Stops the n8n process that polls. */
	stop(): Promise<void>;
	/** Starts it again. */
	start(): Promise<void>;
	positions: SavedPositions;
};
