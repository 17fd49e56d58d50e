// Idempotency-Key for POST requests. The automatic key is derived from what the request IS
// (workflow, node, method, path, body), never from the execution, so that n8n's Retry On Fail and
// a manual re-run of a failed execution send the same key and the server replays the first answer.
import { createHash } from 'crypto';

/** JSON with object keys sorted at every level, so equal bodies give equal text. */
export function canonicalJson(value: unknown): string {
	if (value === undefined) return 'null';
	if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
	if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry)).join(',')}]`;
	const record = value as Record<string, unknown>;
	const keys = Object.keys(record)
		.filter((key) => record[key] !== undefined)
		.sort();
	return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

export interface IdempotencyInput {
	workflowId: string;
	nodeName: string;
	method: string;
	path: string;
	body: unknown;
}

/** `n8n-` followed by the SHA-256 (hex) of the request's identity. */
export function deriveIdempotencyKey(input: IdempotencyInput): string {
	const identity = canonicalJson([
		input.workflowId,
		input.nodeName,
		input.method.toUpperCase(),
		input.path,
		input.body ?? null,
	]);
	return `n8n-${createHash('sha256').update(identity).digest('hex')}`;
}

/**
 * The key to send, or undefined for none. The request's own choice wins (a string, or false for
 * none); otherwise the node setting: 'auto' (default) derives one, 'off' sends none, any other
 * string is used as the key.
 */
export function resolveIdempotencyKey(
	requestChoice: string | false | undefined,
	setting: string | undefined,
	derive: () => string,
): string | undefined {
	if (requestChoice === false) return undefined;
	if (typeof requestChoice === 'string' && requestChoice.trim() !== '') return requestChoice.trim();
	const chosen = (setting ?? 'auto').trim();
	if (chosen === 'off') return undefined;
	if (chosen === 'auto' || chosen === '') return derive();
	return chosen;
}
