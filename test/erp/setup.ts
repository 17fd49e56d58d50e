/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Shared set-up of the ERP node tests: a sandbox on port 0, the demo key, one-node workflow runs,
// direct API reads (to check the sandbox's state, not only the node's output) and the editor's
// list-search / load-options calls.
import assert from 'node:assert/strict';
import { afterAll, beforeAll } from '@jest/globals';

import { LoadOptionsContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { control, DEMO_KEYS, sandboxStats, startSandbox } from '../../sandbox';
import type { SandboxHandle, SandboxOptions, SandboxStats } from '../../sandbox';
import type { NodeSpec, RunWorkflowResult } from '../harness';
import { TestCredentials, credentialRef, runWorkflow, scanError, scanOutput } from '../harness';
import { createAdditionalData } from '../harness/additional-data';
import { HarnessNodeTypes, initRuntime } from '../harness/runtime';

export const ERP = 'n8n-nodes-erp.erp';

/** A resource locator value, as the editor saves it, in ID or reference mode. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const byReference = (value: string) => ({ __rl: true, mode: 'reference', value });

export type Stats = SandboxStats;

export interface ErpTestEnv {
	sandbox: SandboxHandle;
	credentials: TestCredentials;
	/** Runs one ERP node (named "ERP") with these parameters over `input` items. */
	run(
		parameters: INodeParameters,
		options?: { input?: IDataObject[]; continueOnFail?: boolean; workflowId?: string },
	): Promise<RunWorkflowResult>;
	/** Runs a workflow of several nodes (type defaults to the ERP node). */
	runNodes(
		nodes: Array<Omit<NodeSpec, 'type'> & { type?: string }>,
		options?: { input?: IDataObject[]; workflowId?: string },
	): Promise<RunWorkflowResult>;
	/** Calls the API with the demo key, to read the sandbox's state. */
	api(method: string, path: string, body?: unknown): Promise<{ status: number; body: IDataObject }>;
	/** GET on a list endpoint with the demo key: the records of the page it answers. */
	list(path: string): Promise<IDataObject[]>;
	/** The sandbox's request counters. */
	stats(): Promise<Stats>;
	/** Re-seeds the sandbox (data, stats, idempotency). */
	reset(): Promise<void>;
	/** A control call (`POST /_sandbox/<path>`, e.g. `config`, `faults`), which must answer 200. */
	control(path: string, body: IDataObject): Promise<void>;
	/** Calls a list-search method of the node as the editor does. */
	listSearch(
		method: string,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult>;
	/** Calls a load-options method of the node as the editor does. */
	loadOptions(method: string, parameters?: INodeParameters): Promise<INodePropertyOptions[]>;
	close(): Promise<void>;
}

let workflowCounter = 0;

/**
 * The test file's ERP test environment: started before its first test, closed after its last.
 * Jest only (it registers the hooks where it is called).
 */
export function useErpTestEnv(options: SandboxOptions = {}): ErpTestEnv {
	let env: ErpTestEnv | undefined;
	beforeAll(async () => {
		env = await startErpTestEnv(options);
	});
	afterAll(async () => {
		await env?.close();
	});
	return new Proxy({} as ErpTestEnv, {
		get(_target, key: keyof ErpTestEnv) {
			assert.ok(env, 'the ERP test environment is started in beforeAll');
			return env[key];
		},
	});
}

export async function startErpTestEnv(options: SandboxOptions = {}): Promise<ErpTestEnv> {
	const sandbox = await startSandbox({ ...options, port: 0 });
	const credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});

	const api: ErpTestEnv['api'] = async (method, path, body) => {
		const response = await fetch(`${sandbox.baseUrl}${path}`, {
			method,
			headers: {
				Authorization: `Bearer ${DEMO_KEYS.full}`,
				...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		return { status: response.status, body: text ? (JSON.parse(text) as IDataObject) : {} };
	};

	const runNodes: ErpTestEnv['runNodes'] = async (nodes, options = {}) =>
		await runWorkflow({
			nodes: nodes.map((node) => ({ type: ERP, ...node })),
			input: options.input,
			credentials,
			workflowId: options.workflowId ?? `erp-test-${++workflowCounter}`,
		});

	const callMethod = async <T>(
		kind: 'listSearch' | 'loadOptions',
		method: string,
		parameters: INodeParameters,
		args: unknown[],
	): Promise<T> => {
		initRuntime();
		const nodeTypes = new HarnessNodeTypes();
		const node: INode = {
			id: 'erp-node',
			name: 'ERP',
			type: ERP,
			typeVersion: 1,
			position: [0, 0],
			parameters,
			credentials: { erpApi: credentialRef('erpApi') },
		};
		const workflow = new Workflow({
			id: 'erp-editor',
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes,
		});
		const additionalData = createAdditionalData({ credentials, workflowId: 'erp-editor' });
		const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
		const methods = nodeTypes.getByNameAndVersion(ERP, 1).methods as unknown as Record<
			string,
			Record<string, (...a: unknown[]) => Promise<T>>
		>;
		const fn = methods[kind]?.[method];
		assert.ok(fn, `the node has no ${kind} method ${method}`);
		// What the editor shows (R4): scanned for secrets like any output, errors too.
		try {
			const result = await fn.call(context, ...args);
			scanOutput(`${kind} ${method}`, result);
			return result;
		} catch (error) {
			scanError(`${kind} ${method}`, error);
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the node's own error, handed on to the test
			throw error;
		}
	};

	return {
		sandbox,
		credentials,
		run: async (parameters, options = {}) =>
			await runNodes(
				[{ name: 'ERP', parameters, continueOnFail: options.continueOnFail }],
				options,
			),
		runNodes,
		api,
		list: async (path) => (await api('GET', path)).body.data as IDataObject[],
		stats: async () => await sandboxStats(sandbox.url),
		async reset() {
			const response = await fetch(`${sandbox.url}/_sandbox/reset`, { method: 'POST' });
			assert.equal(response.status, 200);
		},
		async control(path, body) {
			const answer = await control(sandbox.url, path, body);
			assert.equal(answer.status, 200, answer.text);
		},
		listSearch: async (method, filter, paginationToken) =>
			await callMethod<INodeListSearchResult>('listSearch', method, { authentication: 'apiKey' }, [
				filter,
				paginationToken,
			]),
		loadOptions: async (method, parameters = {}) =>
			await callMethod<INodePropertyOptions[]>(
				'loadOptions',
				method,
				{ authentication: 'apiKey', ...parameters },
				[],
			),
		close: async () => await sandbox.close(),
	};
}

/** Asserts a failed run whose error names `label` (and the item), with the sandbox untouched. */
export async function assertRefusedBeforeRequest(
	env: ErpTestEnv,
	parameters: INodeParameters,
	label: string,
	options: { input?: IDataObject[]; item?: number } = {},
): Promise<Error> {
	const before = (await env.stats()).requests;
	const result = await env.run(parameters, { input: options.input });
	assert.equal(result.success, false, 'the run should fail');
	const error = result.error as Error & { context?: IDataObject };
	assert.equal(error.name, 'NodeOperationError', error.message);
	assert.ok(error.message.includes(`"${label}"`), `"${error.message}" should name "${label}"`);
	assert.ok(
		error.message.includes(`[item ${options.item ?? 0}]`),
		`"${error.message}" should name the item`,
	);
	assert.equal((await env.stats()).requests, before, 'no request may reach the sandbox');
	return error;
}
