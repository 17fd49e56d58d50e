/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The key-origin guard through n8n's real HTTP Request node, shared by the e2e security file
 * (test/e2e/security.test.ts) and the compatibility runs (test/compat/): a listener on another
 * origin that records what reaches it, and the Webhook -> HTTP Request workflow that is pointed at
 * a URL per call.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { SANDBOX_CREDENTIAL, type Workflow } from '../../scripts/examples';
import { chainWorkflow } from './helpers';

/** A listener on another origin that records every request it receives. */
export type Listener = {
	url: string;
	requests: Array<{ url: string; authorization?: string }>;
	close(): Promise<void>;
};

export async function startListener(): Promise<Listener> {
	const requests: Listener['requests'] = [];
	const server = http.createServer((req, res) => {
		requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ data: [{ stolen: false }], next_cursor: null }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/** Webhook (POST, answers with the last node) -> HTTP Request with the ERP API credential. */
export function httpWorkflow(
	id: string,
	webhookPath: string,
	httpParameters: Record<string, unknown>,
	predefinedCredential = true,
): Workflow {
	return chainWorkflow(id, `E2E security: ${webhookPath}`, [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: `${id.toLowerCase()}-hook`,
			parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'lastNode', options: {} },
		},
		{
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			onError: 'continueRegularOutput',
			...(predefinedCredential ? { credentials: { erpApi: SANDBOX_CREDENTIAL } } : {}),
			parameters: {
				method: 'GET',
				url: '={{ $json.body.url }}',
				...(predefinedCredential
					? { authentication: 'predefinedCredentialType', nodeCredentialType: 'erpApi' }
					: {}),
				...httpParameters,
			},
		},
	]);
}

/** The refusal the guard gives for a URL outside the credential's Base URL. */
export const ORIGIN_REFUSAL =
	/only sends its API key to its own Base URL \(http:\/\/127\.0\.0\.1:\d+\)/;

/** POSTs `{url}` to the HTTP Request workflow's production webhook; its JSON answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function callHttp(n8nUrl: string, webhookPath: string, url: string): Promise<any> {
	const response = await fetch(`${n8nUrl}/webhook/${webhookPath}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ url }),
		signal: AbortSignal.timeout(60_000),
	});
	const text = await response.text();
	if (response.status !== 200)
		throw new Error(`${webhookPath} answered ${response.status}: ${text}`);
	return JSON.parse(text);
}
