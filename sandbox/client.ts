// The sandbox's client, for the tests and the benchmarks (undici over real HTTP): API calls with a
// demo key, the control API (`/_sandbox/...`) and its request counters.
import { request } from 'undici';

import { DEMO_KEYS } from './auth';
import type { App } from './server';
import type { LoggedRequest } from './stats';

/** GET /_sandbox/stats: request counters, store sizes and webhook deliveries. */
export type SandboxStats = ReturnType<App['statsSnapshot']>;

export interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	json: any;
}

export interface CallOptions {
	/** Bearer credential; null sends no Authorization header. Default: the full demo key. */
	key?: string | null;
	body?: unknown;
	/** Raw body text (sent as is). */
	raw?: string;
	headers?: Record<string, string>;
}

export async function call(
	baseUrl: string,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<Answer> {
	const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
	const key = options.key === undefined ? DEMO_KEYS.full : options.key;
	if (key !== null) headers.authorization = `Bearer ${key}`;
	let body: string | undefined = options.raw;
	if (options.body !== undefined) {
		body = JSON.stringify(options.body);
		headers['content-type'] = 'application/json';
	}
	const res = await request(`${baseUrl}${path}`, { method: method as 'GET', headers, body });
	const text = await res.body.text();
	let json: unknown;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: res.headers, text, json };
}

/** POST/GET on the control API (`/_sandbox/...`), which needs no credential. */
export async function control(url: string, path: string, body?: unknown): Promise<Answer> {
	return call(url, body === undefined ? 'GET' : 'POST', `/_sandbox/${path}`, { key: null, body });
}

/** The error body of docs/api-contract.md, checked loosely: code, message and optional details. */
export function errorCode(a: Answer): string | undefined {
	const e = a.json?.error;
	if (!e || typeof e.code !== 'string' || typeof e.message !== 'string') return undefined;
	if (e.details !== undefined && !Array.isArray(e.details)) return undefined;
	return e.code;
}

/** GET /_sandbox/stats. */
export async function sandboxStats(url: string): Promise<SandboxStats> {
	const answer = await control(url, 'stats');
	if (answer.status !== 200) throw new Error(`GET /_sandbox/stats answered ${answer.status}: ${answer.text}`);
	return answer.json as SandboxStats;
}

/** A new sandbox key with these scopes (its own rate-limit bucket). */
export async function newSandboxKey(url: string, scopes: string[], name?: string): Promise<string> {
	const answer = await control(url, 'keys', name === undefined ? { scopes } : { scopes, name });
	if (answer.status >= 300) throw new Error(`POST /_sandbox/keys answered ${answer.status}: ${answer.text}`);
	return String(answer.json.key);
}

/** GET /_sandbox/requests: the latest answered /v1 and /oauth requests (query and status), oldest first. */
export async function sandboxRequests(url: string): Promise<LoggedRequest[]> {
	const answer = await control(url, 'requests');
	if (answer.status !== 200) throw new Error(`GET /_sandbox/requests answered ${answer.status}: ${answer.text}`);
	return answer.json.data as LoggedRequest[];
}
