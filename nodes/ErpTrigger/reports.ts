// The trigger's background work, never silent: a restored registration (at activation, start or a
// scheduled check) is logged as a warning and reported in the next item emitted (`registration`);
// a failed scheduled job is logged as an error and saved as a failed execution where n8n offers it.
import type { IDataObject, IHookFunctions, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { LostReason, NodeMemory } from './memory';

const REASONS: Record<LostReason, string> = {
	gone: 'the ERP no longer had it',
	disabled: 'the ERP had disabled it',
	otherUrl: 'it pointed to another URL',
	otherEvents: 'it had other events',
	noSecret: 'this trigger held no secret for it',
};

export function reportRestore(
	context: IHookFunctions | ITriggerFunctions,
	memory: NodeMemory,
	reason: LostReason,
	webhookId: string,
): void {
	memory.restoreNote = { restored_at: new Date().toISOString(), reason, webhook_id: webhookId };
	const workflowId = context.getWorkflow().id ?? '';
	const node = context.getNode().name;
	context.logger.warn(
		`ERP Trigger: the webhook registration of workflow ${workflowId}, node "${node}" was restored (${REASONS[reason]}): new registration ${webhookId}`,
		{ workflowId, node, reason, webhookId },
	);
}

/** The item with the note of the last restore not yet reported for this node (then forgotten). */
export function withRestoreNote(item: IDataObject, memory: NodeMemory): IDataObject {
	const note = memory.restoreNote;
	if (note === undefined) return item;
	memory.restoreNote = undefined;
	return { ...item, registration: { ...note } };
}

/** A scheduled job's failure, as above; `work`: "checking ..." and "could not ...". */
export function reportFailure(
	context: ITriggerFunctions,
	cause: unknown,
	work: { doing: string; couldNot: string },
): void {
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
