// One poll: what is new since the saved position, as items. Static data: `watch`, `position` (id of
// the last record read), `since` (Start From a date), the watch's keys. n8n saves it after the poll
// at activation and start and after one that emits, not after a quiet poll: harmless, the next poll
// reads the same records again and finds nothing to emit.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { processMemory } from '../ErpTrigger/memory';
import { erpErrorToJson, getListConventions } from '../shared/transport';
import { createdSince, readAfter, WATCH_STATE_KEYS } from '../shared/watches';
import type { PollSettings } from './settings';

const STATE_KEYS = ['watch', 'position', 'since', ...WATCH_STATE_KEYS];

/** The saved position, refused by the ERP: said plainly, never skipped over in silence. */
async function fromPosition(
	context: IPollFunctions,
	path: string,
	position: string | undefined,
	maxPages: number,
) {
	return await readAfter(context, path, {}, position, maxPages).catch(async (error: unknown) => {
		const facts = erpErrorToJson(error);
		if (position === undefined || String(facts.httpCode) !== '400') throw error;
		// About the cursor: its name is the credential's (Custom API Conventions).
		const { cursorParam } = await getListConventions(context);
		if (!JSON.stringify(facts.details ?? '').includes(cursorParam)) throw error;
		throw new NodeOperationError(
			context.getNode(),
			`The ERP no longer accepts this trigger's saved position (${position} in ${path})`,
			{
				description:
					'Nothing after it was skipped. To start again from now, add a new ERP Polling Trigger node in place of this one and publish the workflow.',
			},
		);
	});
}

/** The state's keys as one JSON text, to compare two states. */
const stateText = (state: IDataObject): string =>
	JSON.stringify(STATE_KEYS.map((key) => state[key] ?? null));

/**
 * A scheduled poll: the new items, the state moved on; or undefined while this node's previous poll
 * still runs (n8n starts polls on schedule even then), so two never read from one position. Polls
 * run in one process (n8n's main, the leader in multi-main). n8n 2.41's durable poll cursors save
 * the state a moment after the poll returns: a poll in between got the state from before the last
 * emit and emitted again (the same 3 alerts twice, 2.3 s apart). So when the state handed over is
 * the one the last emit in this process started from, the state that emit left is used instead.
 */
export async function scheduledPoll(context: IPollFunctions, settings: PollSettings) {
	const memory = processMemory.of(context);
	if (memory.polling) {
		context.logger.info(
			'ERP Polling Trigger: the previous poll is still running; this one is skipped',
		);
		return undefined;
	}
	memory.polling = true;
	try {
		const state = context.getWorkflowStaticData('node');
		const { lastEmit } = memory;
		if (lastEmit !== undefined && stateText(state) === lastEmit.before) {
			const after = JSON.parse(lastEmit.after) as unknown[];
			STATE_KEYS.forEach((key, i) => {
				if (after[i] === null) delete state[key];
				else state[key] = after[i] as IDataObject[string];
			});
			context.logger.info(
				'ERP Polling Trigger: n8n handed this poll the position from before its last emit (not saved yet); it goes on from where that emit left',
			);
		}
		const before = stateText(state);
		const items = await pollFrom(context, settings, state);
		if (items.length > 0) memory.lastEmit = { before, after: stateText(state) };
		return items;
	} finally {
		memory.polling = false;
	}
}

/** The new items since `state`, which moves on past them. */
async function pollFrom(context: IPollFunctions, settings: PollSettings, state: IDataObject) {
	const { watch } = settings;
	if (state.watch !== watch.name) {
		// A new start (first activation, or another watch); a failed read leaves the state as it was.
		const end = settings.startFrom === 'now' ? await readAfter(context, watch.path, {}) : undefined;
		for (const key of STATE_KEYS) delete state[key];
		state.watch = watch.name;
		if (end !== undefined) {
			if (end.position !== undefined) state.position = end.position;
			Object.assign(state, watch.start(end.items));
			// n8n 2.41's durable poll cursors do not save the poll at publication: without this commit
			// a restart started from now again, skipping what happened meanwhile. A failure fails it.
			const commit = (context as { __commitCursor?: () => Promise<void> }).__commitCursor;
			if (typeof commit === 'function') await commit();
			return [];
		}
		if (settings.since !== undefined) state.since = settings.since;
	}
	const position = typeof state.position === 'string' ? state.position : undefined;
	const since = typeof state.since === 'string' ? state.since : undefined;
	const read = await fromPosition(context, watch.path, position, settings.maxPages);
	const step = await watch.items(
		context,
		createdSince(watch, read.items, since),
		settings.options,
		state,
	);
	// Saved together: the watch's own state after these records, and the position after them.
	Object.assign(state, step.state);
	if (read.position !== undefined) state.position = read.position;
	if (read.more) {
		context.logger.info(
			`ERP Polling Trigger: read ${read.requests} pages of ${watch.path} (Max Pages per Poll); the rest comes on the next polls`,
		);
	}
	return step.items;
}

/** "Fetch Test Event": the most recent item of the whole list, nothing saved; if none, why. */
export async function manualPoll(context: IPollFunctions, settings: PollSettings) {
	const { watch } = settings;
	const read = await readAfter(context, watch.path, {});
	const latest = await watch.latest(context, read.items, settings.options);
	if (latest !== undefined) return latest;
	throw new NodeOperationError(context.getNode(), `No ${watch.label} item to show yet`, {
		description:
			read.items.length === 0
				? `The ERP's list ${watch.path} is empty. Fetch Test Event shows the most recent item once there is one.`
				: `None of the ${read.items.length} records of the ERP's list ${watch.path} is a ${watch.label} item yet. Fetch Test Event shows the most recent one once there is one.`,
	});
}
