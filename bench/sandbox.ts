/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// A sandbox server in its own process (sandbox-child.ts), with its control API and request log.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

import type { SandboxOptions, SandboxStats } from '../sandbox';

/** One /v1 request as the server saw it. */
export interface RequestRecord {
	/** Arrival, epoch milliseconds with a fractional part. */
	atMs: number;
	method: string;
	path: string;
	status: number;
	/** RateLimit-Remaining of the answer, when the rate limit is on. */
	remaining?: number;
	/** Body bytes of the answer (Content-Length). */
	bytes: number;
}

export type ParentMessage = { type: 'takeLog' } | { type: 'close' };
export type ChildMessage =
	| { type: 'ready'; url: string; baseUrl: string }
	| { type: 'log'; log: RequestRecord[] };

export type { SandboxStats };

export interface BenchSandbox {
	url: string;
	baseUrl: string;
	/** The requests recorded since the previous call (or the start), and forgets them. */
	takeLog(): Promise<RequestRecord[]>;
	stats(): Promise<SandboxStats>;
	/** POST /_sandbox/<what> with a JSON body; returns the parsed answer. */
	control<T = unknown>(what: string, body: unknown): Promise<T>;
	/** A fresh sk_test_ key with these scopes: its own rate-limit bucket. */
	newKey(scopes: string[]): Promise<string>;
	close(): Promise<void>;
}

const CHILD = path.join(__dirname, 'sandbox-child.ts');

function nextMessage<T extends ChildMessage['type']>(child: ChildProcess, type: T): Promise<Extract<ChildMessage, { type: T }>> {
	return new Promise((resolve, reject) => {
		const onMessage = (message: ChildMessage) => {
			if (message.type !== type) return;
			cleanup();
			resolve(message as Extract<ChildMessage, { type: T }>);
		};
		const onExit = (code: number | null) => {
			cleanup();
			reject(new Error(`the sandbox process exited (code ${code}) before sending "${type}"`));
		};
		const cleanup = () => {
			child.off('message', onMessage);
			child.off('exit', onExit);
		};
		child.on('message', onMessage);
		child.on('exit', onExit);
	});
}

export async function startBenchSandbox(options: SandboxOptions): Promise<BenchSandbox> {
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- the benchmark runs measured code in child processes
	const child = fork(CHILD, [JSON.stringify(options)], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const { url, baseUrl } = await nextMessage(child, 'ready');

	async function call<T>(method: string, what: string, body?: unknown): Promise<T> {
		const response = await fetch(`${url}/_sandbox/${what}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} /_sandbox/${what} answered ${response.status}: ${text}`);
		return JSON.parse(text) as T;
	}

	return {
		url,
		baseUrl,
		async takeLog() {
			const answer = nextMessage(child, 'log');
			child.send({ type: 'takeLog' } satisfies ParentMessage);
			return (await answer).log;
		},
		stats: () => call<SandboxStats>('GET', 'stats'),
		control: (what, body) => call('POST', what, body),
		async newKey(scopes) {
			return (await call<{ key: string }>('POST', 'keys', { scopes, name: 'bench' })).key;
		},
		async close() {
			if (child.exitCode !== null) return;
			const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
			child.send({ type: 'close' } satisfies ParentMessage);
			await exited;
		},
	};
}
