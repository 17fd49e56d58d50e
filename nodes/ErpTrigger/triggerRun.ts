// The ERP Trigger's `trigger()`, run at every activation and start, and in a test run. While
// published, it schedules (`registerCron`) the registration check, then the catch-up (catchUp.ts),
// and puts itself in the node's memory (`live`): `webhook()` hands accepted deliveries to its
// `emit`, since n8n saves static data when a trigger emits, never what `webhook()` writes.
// In a test run n8n runs `webhook()` on the test URL, then this `trigger()` in manual mode instead
// of passing on what `webhook()` returned (WorkflowExecute.runNode, 1.123.81 to 2.41.x), so
// `webhook()` leaves the test delivery in the memory (`testDelivery`) for the manual trigger.
import type { IDataObject, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { catchUp, startCatchUp } from './catchUp';
import type { NodeMemory } from './memory';
import { readOptions } from './options';
import { reportFailure, reportRestore, withRestoreNote } from './reports';
import {
	deleteOrphans,
	inspectRegistration,
	isManual,
	register,
	selectedEvents,
	STATIC_KEYS,
} from './webhookLifecycle';

function manualResponse(context: ITriggerFunctions, memory: NodeMemory): ITriggerResponse {
	return {
		manualTriggerFunction: async () => {
			const data = memory.testDelivery;
			memory.testDelivery = undefined;
			if (data === undefined) {
				throw new NodeOperationError(context.getNode(), 'No test event was received', {
					description:
						'Click "Listen for test event" and send an event to this node\'s Test URL. A test run must run in the n8n process that received the event (not on a queue-mode worker).',
				});
			}
			context.emit(data);
		},
	};
}

/**
 * The scheduled check: registers again unless the ERP holds the registration active, with this URL,
 * these events and a secret we hold. False (nothing checked) while n8n's create runs (`registering`);
 * a failure is reported, never thrown: the next check tries again.
 */
async function checkRegistration(context: ITriggerFunctions, memory: NodeMemory): Promise<boolean> {
	if (memory.registering) return false;
	const check = async () => {
		try {
			if (isManual(context)) return;
			const url = context.getWorkflowStaticData('node')[STATIC_KEYS.url];
			if (typeof url !== 'string' || url === '') return;
			const events = selectedEvents(context);
			const state = await inspectRegistration(context, url, events);
			if (state === 'ok') return;
			await deleteOrphans(context, url);
			const id = await register(context, url, events);
			memory.restoredSecret = context.getWorkflowStaticData('node')[STATIC_KEYS.secret] as string;
			reportRestore(context, memory, state === 'none' ? 'gone' : state, id);
		} catch (cause) {
			reportFailure(context, cause, {
				doing: 'checking the webhook registration',
				couldNot: 'could not check or restore its webhook registration',
			});
		}
	};
	memory.checking = check();
	await memory.checking;
	memory.checking = undefined;
	return true;
}

/** The second of each minute this node's checks run at: spread over the minute by node id. */
function secondOf(nodeId: string): number {
	let sum = 0;
	for (const char of nodeId) sum = (sum + char.charCodeAt(0)) % 60;
	return sum;
}

export async function runTrigger(context: ITriggerFunctions, memory: NodeMemory) {
	if (context.getMode() === 'manual') return manualResponse(context, memory);
	const { checkMinutes } = readOptions(context);
	// One run per event: the item, with the note of a restore not yet reported.
	const emit = (item: IDataObject) => context.emit([[{ json: withRestoreNote(item, memory) }]]);
	const live = { emit, saved: () => context.getWorkflowStaticData('node') };
	memory.live = live;
	const unregister = () => {
		if (memory.live === live) memory.live = undefined;
	};
	// Each watch of the catch-up starts from now here the first time: n8n saves it after this.
	try {
		await startCatchUp(context);
	} catch (cause) {
		unregister();
		throw new NodeOperationError(context.getNode(), cause as Error, {
			message: `The ERP Trigger could not read where catching up missed events starts: ${(cause as Error).message}`,
			description:
				'At the first activation, Catch Up Missed Events reads each list it watches to its end. Check that the ERP is reachable and that the credential may read those lists, or turn Catch Up Missed Events off (Options).',
		});
	}
	// n8n 2.41 runs checkExists and create alongside this: the first check is at the first tick, then
	// every `checkMinutes` (cron ticks each minute: it has no "every N minutes"), the catch-up after
	// each. One put off while create runs comes next tick; a tick while work runs is skipped.
	let ticks = 0;
	let putOff = false;
	let running = false;
	const onTick = async () => {
		ticks += 1;
		if (running || !(putOff || (ticks - 1) % checkMinutes === 0)) return;
		running = true;
		try {
			putOff = !(await checkRegistration(context, memory));
			await catchUp(context, memory, emit);
		} finally {
			running = false;
		}
	};
	context.helpers.registerCron(
		{ expression: `${secondOf(context.getNode().id)} * * * * *` },
		() => void onTick(),
	);
	return { closeFunction: async () => unregister() };
}
