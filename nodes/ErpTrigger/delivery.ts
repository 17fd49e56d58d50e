// What becomes of an accepted live delivery (after the signature, replay and event checks): each
// event runs once, whether it came by webhook, by catch-up (catchUp.ts), or both.
//
// - Catch Up Missed Events off: one run, as `webhook()`'s own (workflowData).
// - The trigger runs in this process (the node memory's `live`, triggerRun.ts): an event whose
//   identity already ran is answered 200 and starts nothing; otherwise its identity is recorded in the trigger's static
//   data and the item handed to the trigger's `emit`, which saves that data with the run. The
//   sender gets 200 with no body, as for a run of `webhook()`'s own, which starts none.
// - It does not (a queue-mode webhook processor, or n8n still starting): one run, as
//   `webhook()`'s own, its identity recorded in this process only; catch-up, which runs where the
//   triggers run, cannot see it (logged once).
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { EventConventions } from '../shared/conventions';
import { answer } from './answer';
import { deliveryIdentity, isCaughtUp } from './identity';
import type { NodeMemory } from './memory';
import type { TriggerOptions } from './options';
import { firstRun } from './ranEvents';
import { withRestoreNote } from './reports';

const ALREADY_RUN = { status: 200, body: { received: true, ignored: 'already_run' } };

function warnOnce(
	context: IWebhookFunctions,
	memory: NodeMemory,
	kind: string,
	message: string,
): void {
	if (memory.warned.has(kind)) return;
	memory.warned.add(kind);
	context.logger.warn(message, {
		workflowId: context.getWorkflow().id,
		node: context.getNode().name,
	});
}

const where = (context: IWebhookFunctions) =>
	`workflow ${context.getWorkflow().id ?? ''}, node "${context.getNode().name}"`;

/** One accepted live delivery, `item` being the trigger's item for it. */
export function deliverOnce(
	context: IWebhookFunctions,
	memory: NodeMemory,
	item: IDataObject,
	options: TriggerOptions,
	conventions: EventConventions,
): IWebhookResponseData {
	const ownRun = () => ({ workflowData: [[{ json: withRestoreNote(item, memory) }]] });
	if (!options.catchUp) return ownRun();
	const type = String(item.type);
	const identity = deliveryIdentity(type, item.data, conventions);
	if (identity === undefined && isCaughtUp(type)) {
		warnOnce(
			context,
			memory,
			'identity',
			`ERP Trigger (${where(context)}): a ${type} delivery has no identity at data.${(conventions.identityPaths[type] ?? ['?']).join('.')}, so Catch Up Missed Events may run that event again. Set the identity's path in the credential's Custom API Conventions (Event Identity Paths), or turn Catch Up Missed Events off.`,
		);
	}
	const live = memory.live;
	if (live === undefined) {
		if (isCaughtUp(type)) {
			warnOnce(
				context,
				memory,
				'notLive',
				`ERP Trigger (${where(context)}): a delivery was received by an n8n process that does not run this workflow's triggers (a queue-mode webhook processor, or n8n still starting), so Catch Up Missed Events cannot see it and may run that event again. Where webhook processors receive the deliveries, turn Catch Up Missed Events off.`,
			);
		}
		if (identity !== undefined && !firstRun(memory, identity)) {
			return answer(context, ALREADY_RUN);
		}
		return ownRun();
	}
	if (identity !== undefined && !firstRun(memory, identity, live.saved())) {
		return answer(context, ALREADY_RUN);
	}
	live.emit(item);
	// As a delivery that starts its own run is answered (responseData noData): 200, no body.
	context.getResponseObject().status(200).end();
	return { noWebhookResponse: true };
}
