/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// Child process running one sandbox server for the benchmarks (forked by sandbox.ts), so that the
// server has its own event loop and heap: the contenders are measured without the server's work
// or its 100,000 seeded articles in their process. It records every /v1 answer (arrival time,
// status, RateLimit-Remaining, body bytes) with node:diagnostics_channel, without touching the
// sandbox's code, and hands the log to the parent on request.
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

import { startSandbox } from '../sandbox';
import type { SandboxOptions } from '../sandbox';

import type { ChildMessage, ParentMessage, RequestRecord } from './sandbox';

let log: RequestRecord[] = [];

const nowMs = () => performance.timeOrigin + performance.now();

function headerOf(headers: OutgoingHttpHeaders | undefined, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
	}
	return undefined;
}

diagnostics.subscribe('http.server.request.start', (message) => {
	const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
	if (!request.url?.startsWith('/v1/')) return;
	const record: RequestRecord = {
		atMs: nowMs(),
		method: request.method ?? '',
		path: request.url.replace(/\?.*$/, ''),
		status: 0,
		bytes: 0,
	};
	log.push(record);
	// The sandbox passes its headers to writeHead, where getHeader() cannot see them: read them there.
	const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
	(response as { writeHead: unknown }).writeHead = (status: number, ...rest: unknown[]) => {
		const headers = rest.find((arg) => typeof arg === 'object' && arg !== null) as OutgoingHttpHeaders | undefined;
		record.status = status;
		record.bytes = Number(headerOf(headers, 'content-length') ?? 0);
		const remaining = headerOf(headers, 'ratelimit-remaining');
		if (remaining !== undefined) record.remaining = Number(remaining);
		return writeHead(status, ...rest);
	};
});

const send = (message: ChildMessage) => process.send?.(message);

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
	const sandbox = await startSandbox({ ...options, port: 0, quiet: true });
	process.on('message', (message: ParentMessage) => {
		if (message.type === 'takeLog') {
			const taken = log;
			log = [];
			send({ type: 'log', log: taken });
		} else if (message.type === 'close') {
			void sandbox.close().then(() => process.exit(0));
		}
	});
	// The parent went away without saying so: do not linger.
	process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));
	send({ type: 'ready', url: sandbox.url, baseUrl: sandbox.baseUrl });
}

main().catch((error: unknown) => {
	process.stderr.write(`sandbox child failed: ${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
