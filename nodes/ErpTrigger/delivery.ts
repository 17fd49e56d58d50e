// webhook()'s last two steps: an accepted delivery's run, and the answer. Each event runs once:
// - Catch Up Missed Events off: one run, `webhook()`'s own.
// - The trigger runs in this process (`live`): an event whose identity already ran is answered 200
//   and starts nothing; otherwise its identity is recorded in the trigger's static data and the
//   item goes to the trigger's `emit`, which saves that data with the run (200, no body).
// - It does not: `webhook()`'s own run, the identity recorded in this process only (logged once).
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { ApiConventions, EventConventions } from '../shared/conventions';
import type { NodeMemory } from './memory';
import type { TriggerOptions } from './options';
import { deliveryIdentity, firstRun, isCaughtUp } from './ranEvents';
import { withRestoreNote } from './reports';

/** A delivery answered without a run: the status, a small JSON body, a Retry-After (seconds). */
export interface Refusal {
	status: number;
	body: IDataObject;
	retryAfter?: number;
}

/** Answers with the status and JSON body; no workflow data is returned, so no execution starts. */
export function answer(context: IWebhookFunctions, refusal: Refusal): IWebhookResponseData {
	const res = context.getResponseObject();
	if (refusal.retryAfter !== undefined) res.setHeader('Retry-After', String(refusal.retryAfter));
	res.status(refusal.status).json(refusal.body);
	return { noWebhookResponse: true };
}

/** Delivery headers never copied into the output item. */
const HIDDEN_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

function warnOnce(context: IWebhookFunctions, memory: NodeMemory, kind: string, message: string) {
	if (memory.warned.has(kind)) return;
	memory.warned.add(kind);
	const workflowId = context.getWorkflow().id;
	const node = context.getNode().name;
	context.logger.warn(`ERP Trigger (workflow ${workflowId ?? ''}, node "${node}"): ${message}`, {
		workflowId,
		node,
	});
}

/** One accepted delivery of a published workflow, as the list above says. */
function deliverOnce(
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
			`a ${type} delivery has no identity at data.${(conventions.identityPaths[type] ?? ['?']).join('.')}, so Catch Up Missed Events may run that event again. Set the identity's path in the credential's Custom API Conventions (Event Identity Paths), or turn Catch Up Missed Events off.`,
		);
	}
	const live = memory.live;
	if (live === undefined && isCaughtUp(type)) {
		warnOnce(
			context,
			memory,
			'notLive',
			`a delivery was received by an n8n process that does not run this workflow's triggers (a queue-mode webhook processor, or n8n still starting), so Catch Up Missed Events cannot see it and may run that event again. Where webhook processors receive the deliveries, turn Catch Up Missed Events off.`,
		);
	}
	if (identity !== undefined && !firstRun(memory, identity, live?.saved())) {
		return answer(context, { status: 200, body: { received: true, ignored: 'already_run' } });
	}
	if (live === undefined) return ownRun();
	live.emit(item);
	// As a delivery that starts its own run is answered (responseData noData): 200, no body.
	context.getResponseObject().status(200).end();
	return { noWebhookResponse: true };
}

/** Step 4: the item handed over to a run (above), or in a test run to the manual trigger. */
export function handOver(
	context: IWebhookFunctions,
	memory: NodeMemory,
	item: IDataObject,
	options: TriggerOptions,
	conventions: ApiConventions,
): IWebhookResponseData {
	if (options.includeHeaders) {
		const kept: IDataObject = {};
		for (const [name, value] of Object.entries(context.getRequestObject().headers)) {
			if (!HIDDEN_HEADERS.has(name.toLowerCase())) kept[name] = value as string | string[];
		}
		item.headers = kept;
	}
	if (context.getMode() !== 'manual') {
		return deliverOnce(context, memory, item, options, conventions.event);
	}
	const workflowData = [[{ json: item }]];
	memory.testDelivery = workflowData;
	return { workflowData };
}
