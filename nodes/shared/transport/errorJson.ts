// The JSON of an error item (continueOnFail), read from any error, and the ERP facts the transport
// keeps on the errors it throws (`error.context.erp`), which that JSON carries.
import type { IDataObject } from 'n8n-workflow';

export const ERROR_MARK = 'erp';

/** The ERP facts kept on every error the transport throws (in `error.context.erp`). */
export interface ErpErrorFacts extends IDataObject {
	code: string | null;
	httpCode: number | null;
	details: IDataObject[] | null;
	/** The API's own message (scrubbed), for code that must tell one refusal from another. */
	apiMessage: string | null;
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
 * What the API answered, kept on an error the transport threw (also through a wrapper, e.g. a
 * NodeOperationError around it: causes are looked at); undefined for any other error.
 */
export function apiErrorFacts(error: unknown): Readonly<ErpErrorFacts> | undefined {
	for (const entry of errorChain(error)) {
		const facts = (entry.context as IDataObject | undefined)?.[ERROR_MARK];
		if (facts) return facts as ErpErrorFacts;
	}
	return undefined;
}

/**
 * The JSON for an error item (continueOnFail): `{ message, code, httpCode, details?, description? }`.
 * Works for any error; `code` and `httpCode` are null when the error did not come from the API.
 */
export function erpErrorToJson(error: unknown): IDataObject {
	const record = (error ?? {}) as { message?: unknown; description?: unknown };
	const facts = apiErrorFacts(error);
	let description: string | undefined;
	for (const entry of errorChain(error)) {
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
