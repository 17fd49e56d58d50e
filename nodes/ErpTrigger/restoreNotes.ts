// A restored registration is never silent: logged as a warning in n8n's log, and reported in the
// first item the trigger emits after it (`registration`). Used where a registration is restored:
// n8n's webhook methods at activation and start, and the trigger's scheduled checks (health.ts).
import type { IDataObject, IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

import type { LostReason, NodeMemory, RestoreNote } from './memory';

const REASONS: Record<LostReason, string> = {
	gone: 'the ERP no longer had it',
	disabled: 'the ERP had disabled it',
	otherUrl: 'it pointed to another URL',
	otherEvents: 'it had other events',
	noSecret: 'this trigger held no secret for it',
};

/** Logs a restore and keeps its note in the node's memory for the next item. */
export function reportRestore(
	context: IHookFunctions | ITriggerFunctions,
	memory: NodeMemory,
	reason: LostReason,
	webhookId: string,
): RestoreNote {
	const note: RestoreNote = {
		restored_at: new Date().toISOString(),
		reason,
		webhook_id: webhookId,
	};
	memory.restoreNote = note;
	const workflowId = context.getWorkflow().id ?? '';
	const node = context.getNode().name;
	context.logger.warn(
		`ERP Trigger: the webhook registration of workflow ${workflowId}, node "${node}" was restored (${REASONS[reason]}): new registration ${webhookId}`,
		{ workflowId, node, reason, webhookId },
	);
	return note;
}

/** The item with the note of the last restore not yet reported for this node (then forgotten). */
export function withRestoreNote(item: IDataObject, memory: NodeMemory): IDataObject {
	const note = memory.restoreNote;
	if (note === undefined) return item;
	memory.restoreNote = undefined;
	return { ...item, registration: { ...note } };
}
