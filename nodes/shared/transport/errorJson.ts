// The JSON of an error item (continueOnFail), read from any error, and the ERP facts the transport
// keeps on the errors it throws (`error.context.erp`), which that JSON carries.
import type { IDataObject } from 'n8n-workflow';

export const ERROR_MARK = 'erp';

/** The ERP facts kept on every error the transport throws (in `error.context.erp`). */
export interface ErpErrorFacts extends IDataObject {
	code: string | null;
	httpCode: number | null;
	details: IDataObject[] | null;
}

/** Walks an error and its causes (n8n wraps the HTTP library's error in NodeApiError). */
export function errorChain(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	let current: unknown = error;
	while (
		current &&
		typeof current === 'object' &&
		chain.length < 6 &&
		!chain.includes(current as Record<string, unknown>)
	) {
		chain.push(current as Record<string, unknown>);
		current = (current as { cause?: unknown }).cause;
	}
	return chain;
}

/**
 * The JSON for an error item (continueOnFail): `{ message, code, httpCode, details?, description? }`.
 * Works for any error; `code` and `httpCode` are null when the error did not come from the API.
 */
export function erpErrorToJson(error: unknown): IDataObject {
	const record = (error ?? {}) as { message?: unknown; description?: unknown };
	// The node may have wrapped the transport's error (e.g. in a NodeOperationError): look at causes.
	let facts: ErpErrorFacts | undefined;
	let description: string | undefined;
	for (const entry of errorChain(error)) {
		facts ??= (entry.context as IDataObject | undefined)?.[ERROR_MARK] as ErpErrorFacts | undefined;
		if (
			description === undefined &&
			typeof entry.description === 'string' &&
			entry.description !== ''
		) {
			description = entry.description;
		}
	}
	const json: IDataObject = {
		message: typeof record.message === 'string' ? record.message : String(error),
		code: facts?.code ?? null,
		httpCode: facts?.httpCode ?? null,
	};
	if (description !== undefined) json.description = description;
	if (facts?.details) json.details = facts.details;
	return json;
}
