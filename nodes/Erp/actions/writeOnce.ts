// Writes done once per business reference (an invoice per order, a settlement per payment),
// whatever the ERP does with Idempotency-Key: the whole list is read for the record first; two
// writes for one reference in this process run in turn; a reference used otherwise is a conflict.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ERROR_MARK, getGuardedCredentials } from '../../shared/transport';
import type { ItemErp } from './erp';

/** What differs between the record found and the one asked for: `{ field, message }`. */
export type Difference = { field: string; message: string };

/** The writes for one key in flight in this process, chained: each starts when the previous ends. */
const inFlight = new Map<string, Promise<unknown>>();

/**
 * Runs `write` after earlier writes in this process (not queue-mode workers) for this ERP (the
 * credential's base URL) and `key`, so a second execution for one order finds the first's record.
 */
export async function oneAtATime<T>(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	key: string,
	write: () => Promise<T>,
): Promise<T> {
	const credentials = await getGuardedCredentials(ctx, erp.itemIndex);
	const id = `${String(credentials.baseUrl)}\n${key}`;
	const previous = inFlight.get(id) ?? Promise.resolve();
	const mine = previous.then(write, write);
	const ignore = () => undefined;
	const settled = mine.then(ignore, ignore);
	inFlight.set(id, settled);
	try {
		return await mine;
	} finally {
		if (inFlight.get(id) === settled) inFlight.delete(id);
	}
}

/** An error with a code that error items carry (`code`, `details`), as the transport's errors do. */
export function codedError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	code: string,
	message: string,
	description: string,
	details: IDataObject[] = [],
): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
	error.context[ERROR_MARK] = { code, httpCode: null, details, apiMessage: null };
	return error;
}

/** What a write looks for before it writes, and how the messages name it. */
export interface Lookup {
	// The list read, with `qs` as filters; every record is tested with `matches`.
	path: string;
	qs: IDataObject;
	matches: (record: IDataObject) => boolean;
	list: string; // "invoice list"
	question: string; // 'an invoice with External Reference "1042" was already issued'
	twice: string; // what the check stops: "a second invoice for the same order"
	option: string; // the option that turns the check off, as a path of labels
	nothing: string; // "Nothing was issued."
	differences: (found: IDataObject) => Difference[];
	/** The conflict's message, description, and the detail naming the record found. */
	conflict: (found: IDataObject) => { found: string; description: string; record: IDataObject };
}

/**
 * The record written before if `lookup` finds it unchanged (every page read), else undefined.
 * Changed: `reference_conflict`; no list (404/405/501): `no_list_to_check`, no unchecked write.
 */
export async function findWritten(ctx: IExecuteFunctions, erp: ItemErp, lookup: Lookup) {
	const outcome = await erp.find(lookup.path, lookup.qs, lookup.matches).then(
		(found) => ({ found }),
		(error: unknown) => ({ error }),
	);
	if ('error' in outcome) {
		const status = Number((outcome.error as { httpCode?: unknown } | null)?.httpCode);
		if (![404, 405, 501].includes(status)) throw outcome.error;
		throw codedError(
			ctx,
			erp.itemIndex,
			'no_list_to_check',
			`The ERP has no ${lookup.list} to look in (GET ${lookup.path} answered ${status}), so the node cannot check whether ${lookup.question}. ${lookup.nothing}`,
			`Without that check, only the ERP's Idempotency-Key can stop ${lookup.twice}, and the ERP's specification does not promise it. If your ERP keeps Idempotency-Key, or you accept the risk, turn off ${lookup.option}.`,
		);
	}
	const { found } = outcome;
	const differences = found ? lookup.differences(found) : [];
	if (!found || differences.length === 0) return found;
	const { found: message, description, record } = lookup.conflict(found);
	const listed = differences.map((d) => d.message).join('; ');
	throw codedError(
		ctx,
		erp.itemIndex,
		'reference_conflict',
		`${message}: ${listed}. ${lookup.nothing}`,
		description,
		[record, ...differences],
	);
}
