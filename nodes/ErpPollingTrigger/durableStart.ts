// Where a new watch starts, kept in n8n 2.41's durable poll cursors too.
//
// With durable poll cursors (N8N_POLLER_DURABLE_CURSORS_ENABLED with N8N_SCHEDULER_ENABLED,
// N8N_SCHEDULER_POLL_TRIGGERS_ENABLED and N8N_USE_WORKFLOW_PUBLICATION_SERVICE), n8n 2.41 gives
// the poll a copy of the node's static data read from its `poller_state` table and writes the
// copy back with the execution a poll starts, or after a scheduled poll that starts none. It does
// not write it back after the poll that runs at publication when that poll starts nothing
// (poll-trigger-executor.js commits only when not `testingTrigger`, and publication runs the poll
// as a test). A watch that starts from now emits nothing at publication: without this, its start
// was forgotten and the first poll after a restart started from now again, skipping what happened
// while n8n was stopped.
import type { IPollFunctions } from 'n8n-workflow';

/** n8n 2.41's hook that commits the static data staged during this poll; absent elsewhere. */
type StagedCursorHooks = { __commitCursor?: () => Promise<void> };

/**
 * Saves the start just chosen, as n8n saves a quiet scheduled poll's position. Does nothing where
 * n8n has no durable cursors (the static data is saved after publication there) and when nothing
 * changed. A failure is thrown: publishing fails rather than losing the start in silence.
 */
export async function keepStart(context: IPollFunctions): Promise<void> {
	const commit = (context as IPollFunctions & StagedCursorHooks).__commitCursor;
	if (typeof commit === 'function') await commit();
}
