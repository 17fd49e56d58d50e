// What the API sends back when a request fails: its error read tolerantly from any body, with the
// credential's secrets (and anything that looks like a key or token) scrubbed out. Pure.
import type { IDataObject } from 'n8n-workflow';

/**
 * Replaces the credential's own secret values (API key, tokens, client and webhook secrets: an API
 * may echo them in its errors), then anything that looks like a key, bearer token or webhook secret.
 */
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

export interface ErpApiErrorDetail {
	field?: string;
	message: string;
}

/** The API's error, read tolerantly from a body of any shape. */
export interface ErpApiErrorBody {
	code?: string;
	message?: string;
	details?: ErpApiErrorDetail[];
}

type TextReader = (value: unknown) => string | undefined;

function textReader(secrets: readonly string[]): TextReader {
	return (value) => {
		if (typeof value === 'string' && value.trim() !== '') {
			return redactSecrets(value.trim(), secrets).slice(0, 500);
		}
		if (typeof value === 'number') return String(value);
		return undefined;
	};
}

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

/**
 * Reads `{error: {code, message, details}}` (docs/api-contract.md), and also a bare `message`,
 * an `error` string (OAuth style, with `error_description`), an `errors` array or a non-JSON body.
 * Every text is scrubbed of `secrets` (and of anything that looks like one).
 */
export function readApiError(body: unknown, secrets: readonly string[] = []): ErpApiErrorBody {
	const text = textReader(secrets);
	if (typeof body === 'string') {
		const stripped = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
		return { message: text(stripped)?.slice(0, 200) };
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
