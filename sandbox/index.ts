/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Public entry of the sandbox ERP server: startSandbox(), demo credentials, the webhook signer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type SandboxOptions } from './server';

export { DEMO_KEYS } from './auth';
export { DEMO_OAUTH_CLIENT } from './oauth';
export { signBodyHmac, signWebhook } from './conventions';
export { call, control, errorCode, newSandboxKey, sandboxRequests, sandboxStats } from './client';
export type { LoggedRequest } from './stats';
export type { Answer, CallOptions, SandboxStats } from './client';
export type { SandboxConfig, SandboxOptions } from './server';
export { RATE_LIMIT_ALGORITHMS, UNPACED } from './limiters';
export type { RateLimitAlgorithm } from './limiters';
export { RATE_LIMIT_HEADER_DIALECTS } from './rateLimitHeaders';
export type { RateLimitHeaderDialect } from './rateLimitHeaders';
export type { SandboxConventions } from './conventions';
export type { DeliveryAttempt, WebhookRetry } from './webhooks';
export type { TokenLifetimes } from './oauth';

export interface SandboxHandle {
	/** http://127.0.0.1:PORT */
	url: string;
	/** url + '/v1' */
	baseUrl: string;
	close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
	const app = new App({ ...options, quiet: options.quiet ?? true });
	const server = http.createServer((req, res) => {
		void app.handle(req, res);
	});
	// Idle connections kept 65 s, as production servers do (nginx: 75 s), not Node's 5 s: on a
	// loaded machine a client reused a connection the server was closing (read ECONNRESET).
	server.keepAliveTimeout = 65_000;
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 4010, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
	let closing: Promise<void> | undefined;
	return {
		url,
		baseUrl: `${url}/v1`,
		close() {
			closing ??= new Promise<void>((resolve) => {
				app.close();
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closing;
		},
	};
}
