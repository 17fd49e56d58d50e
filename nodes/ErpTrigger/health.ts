// Registration health: while the workflow is published, the ERP Trigger checks that the ERP still
// holds its registration (active, with its URL, its events, and a secret it holds), and restores
// it when not.
//
// When: n8n runs the webhook's `checkExists` (then `create`) at every activation and start:
// 1.123.81 and 2.33.7 always, 2.41.x because the node also has a `trigger()` (its publication
// service activates a node whose trigger is not registered yet, webhooks included). The node's
// `trigger()`, which n8n runs then too, schedules the checks below with `registerCron` (no
// timers): the first at the first minute, then every *Registration Check Interval* minutes. A
// check costs one request (GET /webhooks/:id); a restore adds GET /webhooks (the list, to delete
// registrations with this URL we hold no secret for), a DELETE when the old one still has our
// URL, and the POST.
//
// Never silent: a restore is logged as a warning in n8n's log and reported in the first item the
// trigger emits after it (restoreNotes.ts); a check or restore that fails is logged as an error
// and saved as a failed execution where n8n offers it (2.x: the executions list, and the error
// workflow if one is set). The ERP's API has no way to re-enable a disabled registration, so a
// disabled one is replaced.
import type { ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { NodeMemory, RestoreNote } from './memory';
import { reportRestore } from './restoreNotes';
import {
	deleteOrphans,
	inspectRegistration,
	isManual,
	register,
	selectedEvents,
	STATIC_KEYS,
} from './webhookLifecycle';

/**
 * One check: undefined when there is nothing to check (manual registration, or never registered:
 * n8n registers at activation); otherwise what was found, the registration restored if needed.
 */
export async function checkRegistration(
	context: ITriggerFunctions,
	memory: NodeMemory,
): Promise<RestoreNote | 'ok' | undefined> {
	if (isManual(context)) return undefined;
	const url = context.getWorkflowStaticData('node')[STATIC_KEYS.url];
	if (typeof url !== 'string' || url === '') return undefined;
	const events = selectedEvents(context);
	const state = await inspectRegistration(context, url, events);
	if (state === 'ok') return 'ok';
	await deleteOrphans(context, url);
	const id = await register(context, url, events);
	memory.restoredSecret = context.getWorkflowStaticData('node')[STATIC_KEYS.secret] as string;
	return reportRestore(context, memory, state === 'none' ? 'gone' : state, id);
}

/** What failed, for the log and the failed execution: "checking ..." and "could not ...". */
export interface FailedWork {
	doing: string;
	couldNot: string;
}

/**
 * A scheduled job's failure, never silent: logged as an error in n8n's log and saved as a failed
 * execution where n8n offers it (2.x: the executions list, and the error workflow if one is set).
 */
export function reportFailure(context: ITriggerFunctions, cause: unknown, work: FailedWork): void {
	const error =
		cause instanceof NodeOperationError
			? cause
			: new NodeOperationError(context.getNode(), cause as Error, {
					message: `The ERP Trigger ${work.couldNot}`,
				});
	context.logger.error(
		`ERP Trigger: ${work.doing} of workflow ${context.getWorkflow().id ?? ''}, node "${context.getNode().name}" failed: ${error.message}`,
		{ workflowId: context.getWorkflow().id, node: context.getNode().name },
	);
	// n8n 1.123 has no saveFailedExecution on trigger functions.
	const save = (context as Partial<Pick<ITriggerFunctions, 'saveFailedExecution'>>)
		.saveFailedExecution;
	if (typeof save === 'function') save.call(context, error);
}

/**
 * A check that never throws: a failure is reported (the next check tries again). Returns the
 * outcome, or undefined when it failed or there was nothing to check.
 */
export async function safeCheck(
	context: ITriggerFunctions,
	memory: NodeMemory,
): Promise<RestoreNote | 'ok' | undefined> {
	try {
		return await checkRegistration(context, memory);
	} catch (cause) {
		reportFailure(context, cause, {
			doing: 'checking the webhook registration',
			couldNot: 'could not check or restore its webhook registration',
		});
		return undefined;
	}
}
