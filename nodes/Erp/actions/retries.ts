// What n8n's Retry On Fail (the node run again over all items: it threw or its first item failed)
// may send again. Each request already had the pack's own retries, so in one run of the node: a
// write the ERP answered is not resent (its answer is given again); an item that failed on a 429,
// or on no answer or a 5xx after a write (maybe applied), fails again with the same error, saying
// so; every other item runs again. Kept per run index in a WeakMap on n8n's node context (unsaved).
import type { IContextObject, IExecuteFunctions } from 'n8n-workflow';

import { erpErrorToJson } from '../../shared/transport';
import type { OperationResult } from './erp';

type Outcome = { result: OperationResult } | { error: unknown };

const runs = new WeakMap<IContextObject, Map<number, Map<number, Outcome>>>();

/** Why a failed item is not sent again by Retry On Fail, or undefined when it may be. */
function notAgain(error: unknown, wrote: boolean): string | undefined {
	const { httpCode } = erpErrorToJson(error);
	if (httpCode === 429) {
		return 'Retry On Fail did not send it again: the node had already waited as long as Request Options › Max Rate-Limit Wait allows.';
	}
	if (wrote && (httpCode === null || Number(httpCode) >= 500)) {
		return 'Retry On Fail did not send it again: the ERP may have applied it. Check in the ERP before sending it again.';
	}
	return undefined;
}

/** The memory of this run of the node; nothing is kept when Retry On Fail is off. */
export function retryMemory(ctx: IExecuteFunctions) {
	if (ctx.getNode().retryOnFail !== true) return undefined;
	const context = ctx.getContext('node');
	const byRun = runs.get(context) ?? new Map<number, Map<number, Outcome>>();
	runs.set(context, byRun);
	const runIndex = ctx.getWorkflowDataProxy(0).$runIndex as number;
	const items = byRun.get(runIndex) ?? new Map<number, Outcome>();
	byRun.set(runIndex, items);
	return {
		/** What this item gave in an earlier try of this run, when it must not be sent again. */
		recall: (itemIndex: number) => items.get(itemIndex),
		/** An item's answer, kept when it wrote (a retry gives it again). */
		answered(itemIndex: number, result: OperationResult, wrote: boolean) {
			if (wrote) items.set(itemIndex, { result });
		},
		/** An item's failure, kept when a retry must not send it again. */
		failed(itemIndex: number, error: unknown, wrote: boolean) {
			const why = notAgain(error, wrote);
			if (why === undefined) return;
			if (error && typeof error === 'object') {
				const { description } = error as { description?: unknown };
				const said = typeof description === 'string' && description !== '';
				(error as { description?: string }).description = said ? `${description} ${why}` : why;
			}
			items.set(itemIndex, { error });
		},
	};
}
