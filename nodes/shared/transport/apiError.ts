// The API's error read from any body, secrets scrubbed; the error built from clean objects (never
// from the HTTP library's error, whose config holds the Authorization header) with the ERP facts it
// keeps (`error.context.erp`); and the JSON of an error item (continueOnFail) from any error.
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';

/** Scrubs the credential's secrets (an API may echo them), then anything like a key or token. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
	let result = text;
	for (const secret of secrets) {
		if (secret.length >= 6) result = result.split(secret).join('***');
	}
	return result
		.replace(/sk_(live|test)_[A-Za-z0-9_-]+/g, 'sk_$1_***')
		.replace(/whsec_[A-Za-z0-9+/=_-]+/g, 'whsec_***')
		.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1***');
}

/** The secret values of a credential (either type), longest first, for `redactSecrets`. */
export function secretsOf(credentials: IDataObject | undefined): string[] {
	if (!credentials) return [];
	const token = (credentials.oauthTokenData ?? {}) as IDataObject;
	return [
		credentials.apiKey,
		credentials.clientSecret,
		credentials.webhookSecret,
		token.access_token,
		token.refresh_token,
		token.id_token,
	]
		.filter((value): value is string => typeof value === 'string' && value.trim() !== '')
		.map((value) => value.trim())
		.sort((a, b) => b.length - a.length);
}

interface ErpApiErrorDetail {
	field?: string;
	message: string;
}

type TextReader = (value: unknown) => string | undefined;

function readDetails(value: unknown, text: TextReader): ErpApiErrorDetail[] | undefined {
	if (!Array.isArray(value)) return undefined;
	const details: ErpApiErrorDetail[] = [];
	for (const entry of value) {
		if (typeof entry === 'string') {
			details.push({ message: text(entry) ?? '' });
		} else if (entry && typeof entry === 'object') {
			const record = entry as IDataObject;
			const field = text(record.field) ?? text(record.path) ?? text(record.param);
			details.push({ field, message: text(record.message) ?? text(record.error) ?? '' });
		}
	}
	return details.length ? details : undefined;
}

// Reads `{error: {code, message, details}}` (docs/api-contract.md), also a bare `message`, an OAuth
// `error` string (with `error_description`), an `errors` array or a non-JSON body; all scrubbed.
export function readApiError(
	body: unknown,
	secrets: readonly string[] = [],
): { code?: string; message?: string; details?: ErpApiErrorDetail[] } {
	const text: TextReader = (value) => {
		if (typeof value === 'string' && value.trim() !== '') {
			return redactSecrets(value.trim(), secrets).slice(0, 500);
		}
		return typeof value === 'number' ? String(value) : undefined;
	};
	if (typeof body === 'string') {
		return { message: text(body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' '))?.slice(0, 200) };
	}
	if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
	const record = body as IDataObject;
	if (record.error && typeof record.error === 'object' && !Array.isArray(record.error)) {
		const inner = record.error as IDataObject;
		return {
			code: text(inner.code),
			message: text(inner.message),
			details: readDetails(inner.details, text) ?? readDetails(inner.errors, text),
		};
	}
	if (typeof record.error === 'string') {
		return {
			code: text(record.code) ?? text(record.error),
			message: text(record.error_description) ?? text(record.message) ?? text(record.error),
			details: readDetails(record.details, text),
		};
	}
	const errors = readDetails(record.errors, text);
	return {
		code: text(record.code),
		message: text(record.message) ?? errors?.[0]?.message,
		details: readDetails(record.details, text) ?? errors,
	};
}

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

/** The ERP facts of a transport error, also through a wrapper (its causes); else undefined. */
export function apiErrorFacts(error: unknown): Readonly<ErpErrorFacts> | undefined {
	for (const entry of errorChain(error)) {
		const facts = (entry.context as IDataObject | undefined)?.[ERROR_MARK];
		if (facts) return facts as ErpErrorFacts;
	}
	return undefined;
}

/** An error item's JSON (continueOnFail), any error: `code`, `httpCode` null if not the API's. */
export function erpErrorToJson(error: unknown): IDataObject {
	const record = (error ?? {}) as { message?: unknown };
	const facts = apiErrorFacts(error);
	const description = errorChain(error)
		.map((entry) => entry.description)
		.find((text): text is string => typeof text === 'string' && text !== '');
	const json: IDataObject = {
		message: typeof record.message === 'string' ? record.message : String(error),
		code: facts?.code ?? null,
		httpCode: facts?.httpCode ?? null,
	};
	if (description !== undefined) json.description = description;
	if (facts?.details) json.details = facts.details;
	return json;
}

export function makeError(
	node: INode,
	message: string,
	description: string | undefined,
	facts: { code?: string; httpCode?: number; details?: ErpApiErrorDetail[]; apiMessage?: string },
	itemIndex: number | undefined,
): NodeApiError {
	const errorResponse: JsonObject = { message };
	const error = new NodeApiError(node, errorResponse, {
		message,
		description,
		httpCode: facts.httpCode !== undefined ? String(facts.httpCode) : undefined,
		itemIndex,
	});
	// NodeApiError swaps messages that contain common network codes; keep ours.
	error.message = message;
	error.context[ERROR_MARK] = {
		code: facts.code ?? null,
		httpCode: facts.httpCode ?? null,
		details: facts.details ? facts.details.map((d) => ({ ...d }) as IDataObject) : null,
		apiMessage: facts.apiMessage ?? null,
	} satisfies ErpErrorFacts;
	return error;
}

export function joinSentences(...parts: Array<string | undefined>): string | undefined {
	const kept = parts.filter((part): part is string => !!part && part.trim() !== '');
	return kept.length ? kept.join(' ') : undefined;
}

export function withPeriod(message: string): string {
	return /[.!?]$/.test(message) ? message : `${message}.`;
}
