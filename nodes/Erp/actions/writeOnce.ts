// Writes that must happen once per business reference (an invoice per order, a settlement per
// payment), whatever the ERP does with Idempotency-Key: the record already written is looked
// for first, reading the list tolerantly; two writes for one reference in this process run one
// after the other; a reference already used for something else is a conflict error.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ERROR_MARK, getGuardedCredentials } from '../../shared/transport';
import type { ItemErp } from './erp';

/** The codes of the errors this file makes, as error items carry them in `code`. */
export const WRITE_ONCE_CODES = {
	conflict: 'reference_conflict',
	noList: 'no_list_to_check',
	paid: 'invoice_already_paid',
} as const;

/** What differs between the record found and the one asked for: `{ field, message }`. */
export type Difference = { field: string; message: string };

/** The writes for one key in flight in this process, chained: each starts when the previous ends. */
const inFlight = new Map<string, Promise<unknown>>();

/**
 * Runs `write` once every earlier write for the same ERP (the credential's base URL) and `key` in
 * this process has ended, so that the second of two executions for one order finds the record
 * the first wrote. Other processes (queue-mode workers) are not held.
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
	const settled = mine.then(
		() => undefined,
		() => undefined,
	);
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

function httpCodeOf(error: unknown): number | undefined {
	const code = Number((error as { httpCode?: unknown } | null)?.httpCode);
	return Number.isInteger(code) ? code : undefined;
}

/** How a list that is not there answers: not found, method not allowed, not implemented. */
const NO_LIST = [404, 405, 501];

/**
 * The first record of the list at `path` that `matches`: asked with `qs` as filters, but every
 * record is checked and the pages are read to the end, so that an ERP ignoring the filters does
 * not fool it. A list that is not there (404, 405, 501) throws `noList(status)`.
 */
export async function findInList(
	erp: ItemErp,
	path: string,
	qs: IDataObject,
	matches: (record: IDataObject) => boolean,
	noList: (status: number) => Error,
): Promise<IDataObject | undefined> {
	const outcome = await erp.find(path, qs, matches).then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (outcome.ok) return outcome.value;
	const status = httpCodeOf(outcome.error);
	if (status !== undefined && NO_LIST.includes(status)) throw noList(status);
	throw outcome.error;
}

/** What a write looks for before it writes, and how the messages name it. */
export interface Lookup {
	/** The list read: path, filters, and the test every record of it gets. */
	path: string;
	qs: IDataObject;
	matches: (record: IDataObject) => boolean;
	/** "invoice list", "settlement list". */
	list: string;
	/** What the lookup answers: 'an invoice with External Reference "1042" was already issued'. */
	question: string;
	/** What it stops: "a second invoice for the same order". */
	twice: string;
	/** The option that turns the check off, as a path of labels. */
	option: string;
	/** "Nothing was issued." */
	nothing: string;
}

/**
 * The record `lookup` finds (findInList), or undefined. A list that is not there is the error
 * `no_list_to_check`, naming the option: never a write without the check, in silence.
 */
export async function findWritten(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	lookup: Lookup,
): Promise<IDataObject | undefined> {
	const noList = (status: number) =>
		codedError(
			ctx,
			erp.itemIndex,
			WRITE_ONCE_CODES.noList,
			`The ERP has no ${lookup.list} to look in (GET ${lookup.path} answered ${status}), so the node cannot check whether ${lookup.question}. ${lookup.nothing}`,
			`Without that check, only the ERP's Idempotency-Key can stop ${lookup.twice}, and the ERP's specification does not promise it. If your ERP keeps Idempotency-Key, or you accept the risk, turn off ${lookup.option}.`,
		);
	return await findInList(erp, lookup.path, lookup.qs, lookup.matches, noList);
}

/**
 * The error `reference_conflict`: `record` (a detail naming the record found) already holds the
 * reference, with these differences.
 */
export function conflictError(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	lookup: Pick<Lookup, 'nothing'>,
	text: { found: string; description: string; record: IDataObject },
	differences: Difference[],
): NodeOperationError {
	const listed = differences.map((d) => d.message).join('; ');
	return codedError(
		ctx,
		erp.itemIndex,
		WRITE_ONCE_CODES.conflict,
		`${text.found}: ${listed}. ${lookup.nothing}`,
		text.description,
		[text.record, ...differences],
	);
}
