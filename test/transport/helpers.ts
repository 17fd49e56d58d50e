/** Shared by the transport and credential tests: sandbox control calls and a one-node workflow runner. */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeParameters,
} from 'n8n-workflow';

import { control as sandboxControl, DEMO_KEYS, newSandboxKey, sandboxStats } from '../../sandbox';
import type { LoggedRequest } from '../../sandbox';
import type { NodeSpec, RunWorkflowResult } from '../harness';
import { runWorkflow, TestCredentials } from '../harness';
import { ERP_CALL_TYPE, erpCallNode } from './erpCallNode';

/** POST (with a body) or GET (without) on the sandbox's control API; the answer's JSON. */
/** An ERP node, for errors built outside a workflow. */
export const erpNode: INode = {
	id: '1',
	name: 'ERP',
	type: 'n8n-nodes-erp.erp',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export async function control(url: string, path: string, body?: unknown): Promise<IDataObject> {
	const answer = await sandboxControl(url, path, body);
	if (answer.status >= 300) throw new Error(`control ${path}: ${answer.status} ${answer.text}`);
	return answer.json as IDataObject;
}

export const stats = sandboxStats;

/** `limit:status` of each logged list request to `path` (`-` when no limit was sent). */
export function pages(log: LoggedRequest[], path = '/v1/articles'): string[] {
	return log
		.filter((entry) => entry.method === 'GET' && entry.path === path)
		.map((entry) => `${entry.query.limit ?? '-'}:${entry.status}`);
}

/** A direct API call (not through n8n), for setting up and checking state. */
export async function api(
	baseUrl: string,
	key: string,
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; json: IDataObject; headers: Headers }> {
	const answer = await fetch(`${baseUrl}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${key}`,
			accept: 'application/json',
			'content-type': 'application/json',
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await answer.text();
	return {
		status: answer.status,
		json: (text ? JSON.parse(text) : {}) as IDataObject,
		headers: answer.headers,
	};
}

/** A new sandbox key with these scopes (its own rate-limit bucket). */
export const newKey = (url: string, scopes: string[]): Promise<string> =>
	newSandboxKey(url, scopes);

/** The demo key's credential, with Custom API Conventions on when `conventions` are given. */
export function conventionCredentials(
	baseUrl: string,
	conventions?: ICredentialDataDecryptedObject,
): TestCredentials {
	return new TestCredentials({
		erpApi: {
			apiKey: DEMO_KEYS.full,
			environment: 'sandbox',
			baseUrl,
			...(conventions ? { customConventions: true, ...conventions } : {}),
		},
	});
}

export function apiKeyCredentials(
	baseUrl: string,
	apiKey: string,
	environment = 'sandbox',
): TestCredentials {
	return new TestCredentials({ erpApi: { apiKey, environment, baseUrl } });
}

/** Runs Start -> `test.erpCall` with these parameters. */
export async function runCall(
	credentials: TestCredentials,
	parameters: INodeParameters,
	options: Partial<NodeSpec> & { workflowId?: string; input?: IDataObject[] } = {},
): Promise<RunWorkflowResult> {
	const { workflowId, input, ...node } = options;
	return await runWorkflow({
		nodes: [{ name: 'Call', type: ERP_CALL_TYPE, parameters, ...node }],
		credentials,
		workflowId,
		input,
		extraNodeTypes: { [ERP_CALL_TYPE]: erpCallNode },
	});
}

/**
 * A call that meets a used-up window: a fresh key, a limit of 1 per 30 s (with `config`, e.g. a
 * header dialect), its one request used, then one `test.erpCall` with a Max Rate-Limit Wait of 5 s.
 */
export async function callPastWindow(
	sb: { url: string; baseUrl: string },
	config: IDataObject = {},
): Promise<{ key: string; result: RunWorkflowResult }> {
	const key = await newKey(sb.url, ['articles:read']);
	await control(sb.url, 'config', { rateLimit: { limit: 1, windowSeconds: 30 }, ...config });
	await api(sb.baseUrl, key, 'GET', '/articles?limit=1');
	const result = await runCall(apiKeyCredentials(sb.baseUrl, key), {
		path: '/articles',
		requestOptions: { maxWaitSeconds: 5 },
	});
	return { key, result };
}
