/**
 * What n8n hands every execution and every hook/webhook call: `IWorkflowExecuteAdditionalData`
 * (the shape of packages/cli `WorkflowExecuteAdditionalData.getBase`) and the workflow's
 * static data, persisted per workflow id as n8n persists it in its database.
 */
import { ExecutionLifecycleHooks, ExternalSecretsProxy } from 'n8n-core';
import type {
	IDataObject,
	INode,
	IConnections,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { UserError, deepCopy } from 'n8n-workflow';

import type { TestCredentials } from './credentials';

export const DEFAULT_WORKFLOW_ID = 'harness-workflow';

/** Base URLs n8n would derive from its public address; nothing listens there. */
const INSTANCE_BASE_URL = 'http://127.0.0.1:5678';

let executionCounter = 0;

export function nextExecutionId(): string {
	executionCounter += 1;
	return `harness-execution-${executionCounter}`;
}

export function workflowBase(
	id: string,
	nodes: INode[],
	connections: IConnections,
): IWorkflowBase {
	const now = new Date();
	return {
		id,
		name: `Harness workflow ${id}`,
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: now,
		updatedAt: now,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
}

export function createAdditionalData(options: {
	credentials: TestCredentials;
	workflowId: string;
	executionId?: string;
	hooks?: ExecutionLifecycleHooks;
}): IWorkflowExecuteAdditionalData {
	const notInHarness = (what: string) => async () => {
		throw new UserError(`${what} is not available in the test harness`);
	};
	return {
		credentialsHelper: options.credentials,
		hooks: options.hooks,
		executionId: options.executionId,
		workflowId: options.workflowId,
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: notInHarness('Executing a sub-workflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: notInHarness('The code task runner'),
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		restApiUrl: `${INSTANCE_BASE_URL}/rest`,
		instanceBaseUrl: INSTANCE_BASE_URL,
		formBaseUrl: `${INSTANCE_BASE_URL}/form`,
		formWaitingBaseUrl: `${INSTANCE_BASE_URL}/form-waiting`,
		formTestBaseUrl: `${INSTANCE_BASE_URL}/form-test`,
		webhookBaseUrl: `${INSTANCE_BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${INSTANCE_BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${INSTANCE_BASE_URL}/webhook-test`,
		mcpBaseUrl: `${INSTANCE_BASE_URL}/mcp`,
		mcpTestBaseUrl: `${INSTANCE_BASE_URL}/mcp-test`,
		variables: {},
	} as IWorkflowExecuteAdditionalData;
}

/**
 * What one execution of a workflow needs: a new execution id, and additional data whose lifecycle
 * hooks save the workflow's changed static data after the run, as n8n's hookFunctionsSave does
 * (never for a manual run).
 */
export function startExecution(options: {
	mode: WorkflowExecuteMode;
	credentials: TestCredentials;
	workflowId: string;
	nodes: INode[];
	connections: IConnections;
}): { executionId: string; additionalData: IWorkflowExecuteAdditionalData } {
	const { mode, credentials, workflowId } = options;
	const executionId = nextExecutionId();
	const hooks = new ExecutionLifecycleHooks(
		mode,
		executionId,
		workflowBase(workflowId, options.nodes, options.connections),
	);
	hooks.addHandler('workflowExecuteAfter', (_run, newStaticData) => {
		if (mode !== 'manual' && newStaticData) saveStaticData(workflowId, newStaticData);
	});
	return {
		executionId,
		additionalData: createAdditionalData({ credentials, workflowId, executionId, hooks }),
	};
}

/* ------------------------------------------------------------------ static data */

const staticDataStore = new Map<string, IDataObject>();

/** The saved static data of a workflow (a copy; empty when nothing was saved). */
export function loadStaticData(workflowId: string): IDataObject {
	return deepCopy(staticDataStore.get(workflowId) ?? {});
}

/** Saves static data as n8n does after a run or an activation that changed it. */
export function saveStaticData(workflowId: string, data: IDataObject): void {
	const copy = deepCopy({ ...data });
	delete copy.__dataChanged;
	staticDataStore.set(workflowId, copy);
}

/** Forgets the saved static data of a workflow (or of all of them). */
export function resetStaticData(workflowId?: string): void {
	if (workflowId === undefined) staticDataStore.clear();
	else staticDataStore.delete(workflowId);
}
