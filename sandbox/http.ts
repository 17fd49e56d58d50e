/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// HTTP plumbing shared by every part of the sandbox: errors, replies, body parsing, routing.
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod/v4';

export interface FieldDetail {
	field: string;
	message: string;
}

/** An answer in the error shape of docs/api-contract.md: { error: { code, message, details? } }. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: FieldDetail[],
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	body() {
		return {
			error: {
				code: this.code,
				message: this.message,
				...(this.details ? { details: this.details } : {}),
			},
		};
	}
}

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
	status,
	body,
	headers,
});

export const errorReply = (e: ApiError): Reply => ({
	status: e.status,
	body: e.body(),
	headers: e.headers,
});

export const notFound = (resource: string, id: string) =>
	new ApiError(404, 'not_found', `${resource} ${id} was not found`);

/** `lignes.0.article_id` -> `lignes[0].article_id` */
export function fieldName(path: PropertyKey[]): string {
	let out = '';
	for (const p of path) {
		if (typeof p === 'number') out += `[${p}]`;
		else out += out ? `.${String(p)}` : String(p);
	}
	return out || '(body)';
}

export function zodDetails(error: z.ZodError): FieldDetail[] {
	return error.issues.map((i) => ({ field: fieldName(i.path), message: i.message }));
}

/** Validates a request body: 422 `validation_failed` with one detail per zod issue. */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
	const r = schema.safeParse(body);
	if (!r.success) {
		throw new ApiError(
			422,
			'validation_failed',
			'The request body failed validation',
			zodDetails(r.error),
		);
	}
	return r.data;
}

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readRawBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES)
			throw new ApiError(413, 'payload_too_large', 'The request body is larger than 1 MB');
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

/** JSON body; an empty body is `{}`; anything unparseable is 400 `invalid_json`. */
export function parseJson(raw: string): unknown {
	if (raw.trim() === '') return {};
	let parsed: unknown;
	let ok = true;
	try {
		parsed = JSON.parse(raw);
	} catch {
		ok = false;
	}
	if (!ok) throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
	return parsed;
}

// ---------- a tiny router ----------
export interface Route<C> {
	method: string;
	pattern: string;
	regex: RegExp;
	keys: string[];
	handler: (ctx: C, params: Record<string, string>) => Reply | Promise<Reply>;
}

export class Router<C> {
	readonly routes: Route<C>[] = [];

	add(method: string, pattern: string, handler: Route<C>['handler']): this {
		const keys: string[] = [];
		const source = pattern.replace(/:([a-z_]+)/g, (_m, k: string) => {
			keys.push(k);
			return '([^/]+)';
		});
		this.routes.push({ method, pattern, regex: new RegExp(`^${source}/?$`), keys, handler });
		return this;
	}

	/** The matching route, or a 404 / 405 error. */
	match(method: string, path: string): { route: Route<C>; params: Record<string, string> } {
		let pathMatched = false;
		for (const route of this.routes) {
			const m = route.regex.exec(path);
			if (!m) continue;
			pathMatched = true;
			if (route.method !== method) continue;
			const params: Record<string, string> = {};
			route.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1])));
			return { route, params };
		}
		if (pathMatched)
			throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${path}`);
		throw new ApiError(404, 'not_found', `No endpoint ${method} ${path}`);
	}
}
