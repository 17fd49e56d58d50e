/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * Secret-leak capture (issue 8, R4). The harness registers every secret it sees (credential
 * fields, OAuth token data, webhook secrets in static data) and scans everything a user or an
 * operator could see: each node's output items and errors (message, description, context,
 * causes), the execution's error, a trigger's answers, the errors of activation, and every log
 * line (n8n-core's Logger, n8n-workflow's LoggerProxy, console). A scan looks for each secret
 * known at that moment: a secret reaches the harness (credential, token persisted by n8n-core,
 * static data) before anything built from it can be seen.
 *
 * In a jest test file, a file-level `afterAll` hook (registered when the harness is first
 * imported) fails the file when anything leaked and prints what was checked.
 */
import { types } from 'node:util';

/** Shorter values are not treated as secrets (they would match ordinary words). */
export const MIN_SECRET_LENGTH = 8;
/** Depth of the walk through nested objects (items, error contexts, log metadata). */
const MAX_DEPTH = 12;

export type SecretKind = 'credential' | 'oauthToken' | 'webhookSecret' | 'other';
export type CaptureKind = 'output' | 'error' | 'log' | 'request' | 'staticData';

export interface LeakFinding {
	/** Where it was seen, e.g. `workflow w1 > node "ERP" > output`. Never contains the secret. */
	where: string;
	capture: CaptureKind;
	secretKind: SecretKind;
	/** What the secret was registered as, e.g. `erpApi.apiKey`. */
	secretName: string;
	/** About 60 characters around the secret, the secret itself replaced by `«secret»`. */
	excerpt: string;
}

export interface LeakCounts {
	secrets: number;
	outputs: number;
	errors: number;
	logLines: number;
	/** Outbound requests scanned (recording servers, see scanRequest). */
	requests: number;
	/** Characters of text scanned. */
	characters: number;
	findings: number;
}

interface Secret {
	value: string;
	kind: SecretKind;
	name: string;
	/** The origins this secret may be sent to (its credential's URLs); empty: not known. */
	origins: Set<string>;
	/** The forms it is searched in: raw, JSON-escaped, URL-encoded, base64 (three alignments), prefix. */
	forms: string[];
}

/** Shortest prefix of a secret that counts as the secret (a truncated copy still leaks). */
export const MIN_PREFIX_LENGTH = 12;

/** The forms a secret can take on its way out. */
export function secretForms(value: string): string[] {
	const forms = new Set<string>([
		value,
		JSON.stringify(value).slice(1, -1),
		encodeURIComponent(value),
		new URLSearchParams({ v: value }).toString().slice(2),
	]);
	// base64 of the secret at any byte offset inside a longer encoded text: encode it after 0, 1
	// or 2 filler bytes and keep the characters that do not depend on the neighbours.
	const bytes = Buffer.from(value, 'utf8');
	for (const pad of [0, 1, 2]) {
		const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
		const start = pad === 0 ? 0 : pad === 1 ? 2 : 3;
		const tailBytes = (pad + bytes.length) % 3;
		const end = encoded.replace(/=+$/, '').length - (tailBytes === 0 ? 0 : 1);
		const core = encoded.slice(start, end);
		if (core.length >= MIN_PREFIX_LENGTH) {
			forms.add(core);
			forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
		}
	}
	// Truncated: a long enough prefix (at least 12 characters and 60% of the secret).
	const prefixLength = Math.max(MIN_PREFIX_LENGTH, Math.ceil(value.length * 0.6));
	if (prefixLength < value.length) forms.add(value.slice(0, prefixLength));
	return [...forms];
}

const originOf = (value: unknown): string | undefined => {
	if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return undefined;
	try {
		return new URL(value).origin;
	} catch {
		return undefined;
	}
};

const secrets = new Map<string, Secret>();
const findings: LeakFinding[] = [];
const counts: Omit<LeakCounts, 'secrets' | 'findings'> = { outputs: 0, errors: 0, logLines: 0, requests: 0, characters: 0 };

/** Field names of credential data and static data whose string values are secrets (URLs are not: `accessTokenUrl`). */
const SECRET_FIELD = /secret|password|token|api_?key|private_?key/i;
const NOT_SECRET_FIELD = /ur[li]$/i;
const isSecretField = (name: string) => SECRET_FIELD.test(name) && !NOT_SECRET_FIELD.test(name);
const OAUTH_TOKEN_FIELDS = ['access_token', 'refresh_token', 'id_token'];

/** Registers a secret (ignored when not a string or shorter than MIN_SECRET_LENGTH). */
export function registerSecret(value: unknown, kind: SecretKind, name: string, origins: string[] = []): void {
	if (typeof value !== 'string') return;
	const trimmed = value.trim();
	if (trimmed.length < MIN_SECRET_LENGTH) return;
	const known = secrets.get(trimmed);
	if (known) {
		for (const origin of origins) known.origins.add(origin);
		return;
	}
	secrets.set(trimmed, { value: trimmed, kind, name, origins: new Set(origins), forms: secretForms(trimmed) });
	// A webhook secret's key part (after `whsec_`) is as secret as the whole.
	if (trimmed.startsWith('whsec_')) registerSecret(trimmed.slice('whsec_'.length), kind, `${name} (key part)`, origins);
}

/**
 * Registers the secrets of stored credential data: fields the type marks as passwords, fields
 * whose name says secret/token/key, and the tokens in `oauthTokenData`.
 */
export function registerCredentialSecrets(
	type: string,
	data: Record<string, unknown> | undefined,
	passwordFields: string[] = [],
): void {
	if (!data) return;
	// Where the credential's secrets may go: the origins of its URLs (base URL, token URL...).
	const origins = Object.values(data).flatMap((value) => originOf(value) ?? []);
	for (const [field, value] of Object.entries(data)) {
		if (field === 'oauthTokenData' && value && typeof value === 'object') {
			for (const tokenField of OAUTH_TOKEN_FIELDS) {
				registerSecret((value as Record<string, unknown>)[tokenField], 'oauthToken', `${type}.oauthTokenData.${tokenField}`, origins);
			}
		} else if (passwordFields.includes(field) || isSecretField(field)) {
			registerSecret(value, field === 'webhookSecret' ? 'webhookSecret' : 'credential', `${type}.${field}`, origins);
		}
	}
}

/** Registers secrets held in a workflow's static data (a trigger's webhook secret). */
export function registerStaticDataSecrets(workflowId: string, data: unknown, depth = 0): void {
	if (!data || typeof data !== 'object' || depth > 4) return;
	for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
		if (typeof value === 'string') {
			if (isSecretField(key) || value.startsWith('whsec_')) {
				registerSecret(value, 'webhookSecret', `static data of ${workflowId}: ${key}`);
			}
		} else {
			registerStaticDataSecrets(workflowId, value, depth + 1);
		}
	}
}

/** Every string reachable from `value` (own properties, non-enumerable ones of errors included), one per line. */
export function textOf(value: unknown): string {
	const parts: string[] = [];
	const seen = new Set<object>();
	const walk = (v: unknown, depth: number): void => {
		if (typeof v === 'string') {
			parts.push(v);
			return;
		}
		if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') {
			parts.push(String(v));
			return;
		}
		if (!v || typeof v !== 'object' || depth > MAX_DEPTH || seen.has(v)) return;
		seen.add(v);
		if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) {
			// Bytes (a raw body, binary data) are scanned as UTF-8 text.
			parts.push(Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString('utf8'));
			return;
		}
		if (v instanceof Map) {
			for (const [k, entry] of v) {
				walk(k, depth + 1);
				walk(entry, depth + 1);
			}
			return;
		}
		if (Array.isArray(v)) {
			for (const entry of v) walk(entry, depth + 1);
			return;
		}
		const isError = v instanceof Error || types.isNativeError(v);
		const names = isError ? Object.getOwnPropertyNames(v) : Object.keys(v);
		if (isError && !names.includes('message')) names.push('message');
		for (const name of names) {
			let entry: unknown;
			try {
				entry = (v as Record<string, unknown>)[name];
			} catch {
				continue;
			}
			if (typeof entry === 'function') continue;
			parts.push(name);
			walk(entry, depth + 1);
		}
	};
	walk(value, 0);
	return parts.join('\n');
}

function excerptAround(text: string, index: number, secret: string): string {
	const start = Math.max(0, index - 30);
	const end = Math.min(text.length, index + secret.length + 30);
	return text.slice(start, end).split(secret).join('«secret»').replace(/\s+/g, ' ');
}

/** Scans a text for every registered secret (also in its JSON-escaped form); returns the new findings. */
function scanText(
	text: string,
	where: string,
	capture: CaptureKind,
	include: (secret: Secret) => boolean = () => true,
): LeakFinding[] {
	counts.characters += text.length;
	// Basic credentials and other base64 tokens are also scanned decoded.
	const decoded = (text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? [])
		.map((token) => Buffer.from(token, token.includes('-') || token.includes('_') ? 'base64url' : 'base64').toString('utf8'))
		.filter((s) => /^[\x20-\x7e]*$/.test(s));
	if (decoded.length > 0) text = `${text}\n${decoded.join('\n')}`;
	const found: LeakFinding[] = [];
	for (const secret of secrets.values()) {
		if (!include(secret)) continue;
		for (const form of secret.forms) {
			const index = text.indexOf(form);
			if (index === -1) continue;
			found.push({
				where,
				capture,
				secretKind: secret.kind,
				secretName: secret.name,
				excerpt: excerptAround(text, index, form),
			});
			break;
		}
	}
	findings.push(...found);
	return found;
}

/** Scans something a user sees: a node's output items, an answer's body. */
export function scanOutput(where: string, value: unknown): LeakFinding[] {
	counts.outputs += 1;
	return scanText(textOf(value), where, 'output');
}

/** Scans an error: message, description, context, causes and every other own property. */
export function scanError(where: string, error: unknown): LeakFinding[] {
	counts.errors += 1;
	return scanText(textOf(error), where, 'error');
}

/**
 * Scans an outbound request that reached a server of the test (a recording server) at `origin`:
 * a registered secret whose credential names other origins must not be in it (method, URL,
 * headers, body). Secrets whose origins are not known are not judged here.
 */
export function scanRequest(
	where: string,
	origin: string,
	request: { method: string; url: string; headers: unknown; body: string },
): LeakFinding[] {
	counts.requests += 1;
	return scanText(
		textOf([request.method, request.url, request.headers, request.body]),
		`${where} (request to ${origin})`,
		'request',
		(secret) => secret.origins.size > 0 && !secret.origins.has(origin),
	);
}

/**
 * Scans a workflow's static data: the trigger keeps its own webhook secret there, nothing else
 * secret (an API key, a token, a client secret) may land in it.
 */
export function scanStaticData(workflowId: string, data: unknown): LeakFinding[] {
	return scanText(textOf(data), `static data of ${workflowId}`, 'staticData', (secret) => secret.kind !== 'webhookSecret');
}

/** Scans one log line: its message and metadata. */
export function scanLog(where: string, message: unknown, meta?: unknown): LeakFinding[] {
	counts.logLines += 1;
	return scanText(textOf([message, meta]), where, 'log');
}

/** What each registered secret was registered as (`erpApi.apiKey`...), never the values. */
export function secretNames(): string[] {
	return [...secrets.values()].map((secret) => secret.name);
}

export function leakCounts(): LeakCounts {
	return { ...counts, secrets: secrets.size, findings: findings.length };
}

/** The findings so far (copies). */
export function leakFindings(): LeakFinding[] {
	return findings.map((f) => ({ ...f }));
}

/**
 * Removes and returns the findings made since `mark` (a `leakFindings().length` taken before):
 * for a test that plants a leak on purpose to prove it is caught. Every other finding stays and
 * fails the file.
 */
export function takeFindingsSince(mark: number): LeakFinding[] {
	return findings.splice(mark);
}

export function describeFinding(f: LeakFinding): string {
	return `${f.secretKind} ${f.secretName} in ${f.capture} at ${f.where}: …${f.excerpt}…`;
}

/** Whether this runs inside a jest test file (jest sets JEST_WORKER_ID in its workers and in-band). */
function inTestRunner(): boolean {
	return process.env.JEST_WORKER_ID !== undefined;
}

let hookRegistered = false;

function leakReport(list: LeakFinding[]): string {
	return (
		`SECRET LEAK: ${list.length} secret leak(s) in node outputs, errors, logs or outbound requests (the file fails):\n` +
		list
			.slice(0, 20)
			.map((f) => `  ${describeFinding(f)}\n`)
			.join('')
	);
}

/**
 * Registers the file-level check (once). Called when the harness is first imported, at the top
 * level of a test file, so that the hook belongs to the file and runs after all its describe
 * blocks (jest runs a block's own tests and nested blocks before its `afterAll` hooks). A leak
 * fails the file: the hook throws, and jest still runs the file's other `afterAll` hooks.
 */
export function registerFileLeakCheck(): void {
	if (hookRegistered || !inTestRunner()) return;
	hookRegistered = true;
	// jest's global (not an import from '@jest/globals', which throws outside jest: the benchmarks
	// use the harness too).
	const { afterAll } = globalThis as unknown as { afterAll: (fn: () => void) => void };
	afterAll(() => {
		const c = leakCounts();
		if (c.outputs + c.errors + c.logLines + c.requests > 0) {
			process.stdout.write(
				`# secret-leak check: ${c.secrets} secrets against ${c.outputs} outputs, ${c.errors} errors, ` +
					`${c.logLines} log lines, ${c.requests} outbound requests (${c.characters} characters): ${c.findings} leaks\n`,
			);
		}
		if (findings.length > 0) throw new Error(leakReport(findings));
	});
}
