// Registration health: while the workflow is published, the ERP Trigger checks that the ERP still
// holds its registration (active, with its URL, its events, and a secret it holds), at every n8n
// start and activation and every *Registration Check Interval* minutes, and restores it when not.
//
// The moment n8n gives: the node's `trigger()`. n8n (1.123.81, 2.33.7 and 2.41.x) runs it after
// adding the node's webhooks, at every activation and every start, also where it does not run the
// webhook's `checkExists` at start (2.41 with its publication service); `registerCron` schedules
// the later checks without timers. A check costs one request (GET /webhooks/:id); a restore adds
// GET /webhooks (the list, to delete registrations with this URL we hold no secret for), a DELETE
// when the old one still has our URL, and the POST.
//
// Never silent: a restore is logged as a warning in n8n's log and reported in the first item the
// trigger emits after it (`registration`); a check or restore that fails is logged as an error and
// saved as a failed execution (the executions list, and the error workflow if one is set). The
// ERP's API has no way to re-enable a disabled registration, so a disabled one is replaced.
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RegistrationState } from './webhookLifecycle';
import {
	deleteOrphans,
	inspectRegistration,
	isManual,
	register,
	restoredSecrets,
	scopeOf,
	selectedEvents,
	STATIC_KEYS,
} from './webhookLifecycle';

/** What a restore reports in the next item: when, why, and the new registration's id. */
export interface RestoreNote {
	restored_at: string;
	reason: Exclude<RegistrationState, 'ok' | 'none'>;
	webhook_id: string;
}

/** Restores made in this process and not yet reported in an item, per trigger node. */
const unreported = new Map<string, RestoreNote>();

/** The note of the last restore not yet reported for this node (and forgets it). */
export function takeRestoreNote(scope: string): RestoreNote | undefined {
	const note = unreported.get(scope);
	unreported.delete(scope);
	return note;
}

const REASONS: Record<RestoreNote['reason'], string> = {
	gone: 'the ERP no longer had it',
	disabled: 'the ERP had disabled it',
	otherUrl: 'it pointed to another URL',
	otherEvents: 'it had other events',
	noSecret: 'this trigger held no secret for it',
};

/**
 * One check: undefined when there is nothing to check (manual registration, or never registered:
 * n8n registers at activation); otherwise what was found, the registration restored if needed.
 */
export async function checkRegistration(
	context: ITriggerFunctions,
): Promise<RestoreNote | 'ok' | undefined> {
	if (isManual(context)) return undefined;
	const url = context.getWorkflowStaticData('node')[STATIC_KEYS.url];
	if (typeof url !== 'string' || url === '') return undefined;
	const events = selectedEvents(context);
	const state = await inspectRegistration(context, url, events);
	if (state === 'ok') return 'ok';
	await deleteOrphans(context, url);
	const id = await register(context, url, events);
	const scope = scopeOf(context);
	restoredSecrets.set(scope, context.getWorkflowStaticData('node')[STATIC_KEYS.secret] as string);
	const reason = state === 'none' ? 'gone' : state;
	const note: RestoreNote = { restored_at: new Date().toISOString(), reason, webhook_id: id };
	unreported.set(scope, note);
	context.logger.warn(
		`ERP Trigger: the webhook registration of workflow ${context.getWorkflow().id ?? ''}, node "${context.getNode().name}" was restored (${REASONS[reason]}): new registration ${id}`,
		{ workflowId: context.getWorkflow().id, node: context.getNode().name, reason, webhookId: id },
	);
	return note;
}

/**
 * A check that never throws: a failure is logged and saved as a failed execution (the next check
 * tries again). Returns the outcome, or undefined when it failed or there was nothing to check.
 */
export async function safeCheck(
	context: ITriggerFunctions,
): Promise<RestoreNote | 'ok' | undefined> {
	try {
		return await checkRegistration(context);
	} catch (cause) {
		const error =
			cause instanceof NodeOperationError
				? cause
				: new NodeOperationError(context.getNode(), cause as Error, {
						message: 'The ERP Trigger could not check or restore its webhook registration',
					});
		context.logger.error(
			`ERP Trigger: checking the webhook registration of workflow ${context.getWorkflow().id ?? ''}, node "${context.getNode().name}" failed: ${error.message}`,
			{ workflowId: context.getWorkflow().id, node: context.getNode().name },
		);
		// n8n 1.123 has no saveFailedExecution on trigger functions.
		const save = (context as Partial<Pick<ITriggerFunctions, 'saveFailedExecution'>>)
			.saveFailedExecution;
		if (typeof save === 'function') save.call(context, error);
		return undefined;
	}
}

/** The item field that reports a restore. */
export function withRestoreNote(item: IDataObject, note: RestoreNote | undefined): IDataObject {
	return note === undefined ? item : { ...item, registration: { ...note } };
}
