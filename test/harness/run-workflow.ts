/**
 * runWorkflow: builds a workflow from a short spec and runs it with n8n-core's WorkflowExecute,
 * as n8n runs a manual execution (`WorkflowExecute.run({ workflow, startNode })`).
 */
import { WorkflowExecute } from 'n8n-core';
import type {
	IConnections,
	IDataObject,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IRunData,
	ITaskData,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
	OnError,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeConnectionTypes, UserError, Workflow, deepCopy } from 'n8n-workflow';

import { DEFAULT_WORKFLOW_ID, loadStaticData, startExecution } from './additional-data';
import { credentialRef } from './credentials';
import { registerStaticDataSecrets, scanError, scanOutput, scanStaticData } from './leaks';
import type { TestCredentials } from './credentials';
import { HarnessNodeTypes } from './runtime';

/** The harness's Manual Trigger: emits the run's input items when the workflow starts. */
export const START_NODE_TYPE = 'n8n-nodes-harness.manualTrigger';
export const START_NODE_NAME = 'Start';

function startNodeType(input: IDataObject[]): INodeType {
	return {
		description: {
			displayName: 'Manual Trigger (harness)',
			name: 'manualTrigger',
			group: ['trigger'],
			version: 1,
			description: 'Runs the workflow with the items the test gives',
			eventTriggerDescription: '',
			maxNodes: 1,
			defaults: { name: START_NODE_NAME },
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
			const manualTriggerFunction = async () => {
				this.emit([this.helpers.returnJsonArray(deepCopy(input))]);
			};
			return { manualTriggerFunction };
		},
	};
}

export interface NodeSpec {
	name: string;
	type: string;
	parameters?: INodeParameters;
	typeVersion?: number;
	continueOnFail?: boolean;
	onError?: OnError;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	alwaysOutputData?: boolean;
	executeOnce?: boolean;
	disabled?: boolean;
	/** Default: every credential type the node type declares, bound to the TestCredentials. */
	credentials?: INodeCredentials;
}

export interface RunWorkflowSpec {
	nodes: NodeSpec[];
	/** `[from, to]` or `[from, to, fromOutputIndex]`. Default: a chain in the order of `nodes`. */
	connections?: Array<[from: string, to: string, output?: number]>;
	/** The items the start node emits (default `[{}]`). */
	input?: IDataObject[];
	credentials: TestCredentials;
	/** Default a fixed id. Runs with the same id are runs of one workflow (and share its saved static data). */
	workflowId?: string;
	/** Test-only node types, keyed by full type name. */
	extraNodeTypes?: Record<string, INodeType | IVersionedNodeType>;
	/**
	 * Execution mode (default `manual`, as "Execute workflow" in the editor). As in n8n, static
	 * data changed by a `manual` run is not saved; use `trigger` (or `webhook`) for that.
	 */
	mode?: WorkflowExecuteMode;
}

export interface RunWorkflowResult {
	success: boolean;
	/** The execution's error (as n8n stores it in `resultData.error`). */
	error?: Error;
	/** The `json` of the items of the node's first output in its last run. Throws if the node did not run. */
	output(nodeName: string, outputIndex?: number): IDataObject[];
	/** The items of the node's first output in its last run. Throws if the node did not run. */
	items(nodeName: string, outputIndex?: number): INodeExecutionData[];
	runData: IRunData;
	/** The whole run, as n8n's `workflowExecuteAfter` hook receives it. */
	run: IRun;
	/** The workflow's static data after the run (what n8n saved). */
	staticData: IDataObject;
	/** The execution id, unique per run. */
	executionId: string;
}

function isTriggerType(nodeType: INodeType): boolean {
	const { group } = nodeType.description;
	return group.includes('trigger') || !!nodeType.trigger || !!nodeType.webhook || !!nodeType.poll;
}

function defaultCredentials(nodeType: INodeType, credentials: TestCredentials): INodeCredentials | undefined {
	const declared = nodeType.description.credentials ?? [];
	if (declared.length === 0) return undefined;
	const bound: INodeCredentials = {};
	for (const { name } of declared) {
		if (credentials.has(name)) bound[name] = credentialRef(name);
	}
	return bound;
}

function buildConnections(
	pairs: Array<[string, string, number?]>,
): IConnections {
	const connections: IConnections = {};
	for (const [from, to, output = 0] of pairs) {
		const main = (connections[from] ??= { main: [] }).main;
		while (main.length <= output) main.push([]);
		(main[output] ??= []).push({ node: to, type: NodeConnectionTypes.Main, index: 0 });
	}
	return connections;
}

/**
 * Scans a run for secrets (leaks.ts): every node's output and error, and the execution's error.
 * Secrets in the saved static data are registered first. `skipNodes`: nodes that only emit the
 * test's own input (the harness's start node).
 */
export function scanRunForLeaks(where: string, run: IRun, workflowId: string, skipNodes: string[] = []): void {
	registerStaticDataSecrets(workflowId, loadStaticData(workflowId));
	scanStaticData(workflowId, loadStaticData(workflowId));
	for (const [nodeName, tasks] of Object.entries(run.data.resultData.runData)) {
		if (skipNodes.includes(nodeName)) continue;
		tasks.forEach((task, runIndex) => {
			const at = `${where} > node "${nodeName}" run ${runIndex}`;
			if (task.data) scanOutput(`${at} > output`, task.data);
			if (task.error) scanError(`${at} > error`, task.error);
		});
	}
	if (run.data.resultData.error) scanError(`${where} > execution error`, run.data.resultData.error);
}

export async function runWorkflow(spec: RunWorkflowSpec): Promise<RunWorkflowResult> {
	const { credentials } = spec;
	const input = spec.input ?? [{}];
	const mode = spec.mode ?? 'manual';
	const workflowId = spec.workflowId ?? DEFAULT_WORKFLOW_ID;
	const nodeTypes = new HarnessNodeTypes({
		...spec.extraNodeTypes,
		[START_NODE_TYPE]: startNodeType(input),
	});

	const specs = [...spec.nodes];
	if (specs.length === 0) throw new UserError('runWorkflow needs at least one node');
	const pairs = spec.connections
		? [...spec.connections]
		: specs.slice(1).map((n, i): [string, string] => [specs[i].name, n.name]);
	const firstType = nodeTypes.getByNameAndVersion(specs[0].type, specs[0].typeVersion);
	if (!isTriggerType(firstType)) {
		specs.unshift({ name: START_NODE_NAME, type: START_NODE_TYPE });
		if (!pairs.some(([from]) => from === START_NODE_NAME)) {
			pairs.unshift([START_NODE_NAME, spec.nodes[0].name]);
		}
	}

	const nodes: INode[] = specs.map((s, index) => {
		const nodeType = nodeTypes.getByNameAndVersion(s.type, s.typeVersion);
		const typeVersion = s.typeVersion ?? nodeType.description.version;
		const node: INode = {
			id: `harness-node-${index}`,
			name: s.name,
			type: s.type,
			typeVersion: Array.isArray(typeVersion) ? Math.max(...typeVersion) : typeVersion,
			position: [index * 200, 0],
			parameters: deepCopy(s.parameters ?? {}),
		};
		const creds = s.credentials ?? defaultCredentials(nodeType, credentials);
		if (creds) node.credentials = creds;
		for (const key of [
			'continueOnFail',
			'onError',
			'retryOnFail',
			'maxTries',
			'waitBetweenTries',
			'alwaysOutputData',
			'executeOnce',
			'disabled',
		] as const) {
			if (s[key] !== undefined) (node as unknown as Record<string, unknown>)[key] = s[key];
		}
		return node;
	});

	const connections = buildConnections(pairs);
	const workflow = new Workflow({
		id: workflowId,
		name: `Harness workflow ${workflowId}`,
		nodes,
		connections,
		active: false,
		nodeTypes,
		staticData: loadStaticData(workflowId),
		settings: { executionOrder: 'v1' },
	});

	const { executionId, additionalData } = startExecution({
		mode,
		credentials,
		workflowId,
		nodes,
		connections,
	});

	const startNode = workflow.getNode(specs[0].name) ?? undefined;
	const triggerData: ITaskData = {
		startTime: Date.now(),
		executionTime: 0,
		executionIndex: 0,
		source: [],
		data: { main: [deepCopy(input).map((json) => ({ json }))] },
	};
	const run = await new WorkflowExecute(additionalData, mode).run({
		workflow,
		startNode,
		triggerToStartFrom: { name: specs[0].name, data: triggerData },
	});

	const runData = run.data.resultData.runData;
	const error = run.data.resultData.error;
	scanRunForLeaks(`workflow ${workflowId} > ${executionId}`, run, workflowId, [START_NODE_NAME]);
	const items = (nodeName: string, outputIndex = 0): INodeExecutionData[] => {
		const runs = runData[nodeName];
		if (!runs || runs.length === 0) {
			const errors = Object.entries(runData)
				.filter(([, r]) => r.some((t) => t.error))
				.map(([name, r]) => `${name}: ${r.find((t) => t.error)?.error?.message}`);
			throw new UserError(
				`Node "${nodeName}" did not run` + (errors.length ? ` (errors: ${errors.join('; ')})` : ''),
			);
		}
		return runs[runs.length - 1].data?.main?.[outputIndex] ?? [];
	};
	return {
		success: run.status === 'success' && !error,
		error,
		items,
		output: (nodeName, outputIndex) => items(nodeName, outputIndex).map((item) => item.json),
		runData,
		run,
		staticData: loadStaticData(workflowId),
		executionId,
	};
}
