// The harness plays n8n's scheduler, not a node.
/**
 * The polling side of a trigger node, as n8n 2.41 runs it in production (packages/cli
 * ActiveWorkflowManager, TriggersAndPollers, ScheduledTaskManager):
 * - one `Workflow` per n8n process: the static data loaded from the store at activation or
 *   start is the same object every poll of that process works on;
 * - a poll runs at activation (`activation: 'activate'`) and at every start (`'init'`): its static
 *   data is saved afterwards, whatever it returned;
 * - a scheduled poll (`poll()`) runs in n8n-core's PollContext (mode `trigger`); when it returns
 *   items, they are emitted (one workflow run each time) and the static data is saved; **when it
 *   returns nothing, the static data is not saved** (a restart then goes back to what was saved);
 * - `restart()` is n8n stopped and started again: a new process, a new `Workflow` from the saved
 *   static data, and the start poll;
 * - `fetchTestEvent()` is the editor's "Fetch Test Event": mode `manual`, nothing saved.
 * The schedule itself is the test's: each `poll()` is one tick.
 */
import { PollContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { deepCopy, UserError, Workflow } from 'n8n-workflow';

import {
	createAdditionalData,
	loadStaticData,
	nextExecutionId,
	saveStaticData,
} from './additional-data';
import { credentialRef } from './credentials';
import type { TestCredentials } from './credentials';
import { HarnessNodeTypes } from './runtime';

export const ERP_POLLING_TRIGGER_TYPE = 'n8n-nodes-erp.erpPollingTrigger';

export interface PollerSpec {
	type?: string;
	parameters: INodeParameters;
	credentials: TestCredentials;
	workflowId?: string;
	/** The node's saved static data before activation. */
	staticData?: IDataObject;
}

export interface PollerHandle {
	readonly workflowId: string;
	/** The node's static data as last saved (a copy). */
	readonly savedState: IDataObject;
	/** The node's static data in the running process (a copy). */
	readonly liveState: IDataObject;
	/** The items of every emitted run, in order (activation and start polls included). */
	readonly runs: IDataObject[][];
	/** Every emitted item, in order. */
	readonly items: IDataObject[];
	/** One scheduled poll; resolves with the items it emitted (empty when none). */
	poll(): Promise<IDataObject[]>;
	/**
	 * One scheduled poll handed `state` as its static data: n8n 2.41's durable poll cursors hand
	 * each poll the state read from their table, which lags a moment behind the last emit.
	 */
	pollHanded(state: IDataObject): Promise<IDataObject[]>;
	/** n8n stopped and started again: a new process from the saved static data, and its start poll. */
	restart(): Promise<IDataObject[]>;
	/** "Fetch Test Event" in the editor: a manual poll; nothing is saved. */
	fetchTestEvent(): Promise<IDataObject[]>;
}

export async function activatePoller(spec: PollerSpec): Promise<PollerHandle> {
	const type = spec.type ?? ERP_POLLING_TRIGGER_TYPE;
	const workflowId = spec.workflowId ?? `harness-poller-${nextExecutionId()}`;
	const nodeTypes = new HarnessNodeTypes();
	const nodeType = nodeTypes.getByNameAndVersion(type);
	if (!nodeType.poll) throw new UserError(`Node type ${type} has no poll function`);
	const nodeName = nodeType.description.defaults.name ?? 'Poller';
	const credentials: INode['credentials'] = {};
	for (const { name } of nodeType.description.credentials ?? []) {
		if (spec.credentials.has(name)) credentials[name] = credentialRef(name);
	}
	const nodeTemplate: INode = {
		id: 'harness-poller-node',
		name: nodeName,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: deepCopy(spec.parameters),
		credentials,
	};
	if (spec.staticData) {
		saveStaticData(workflowId, {
			...loadStaticData(workflowId),
			[`node:${nodeName}`]: deepCopy(spec.staticData),
		});
	}

	const runs: IDataObject[][] = [];
	let workflow: Workflow;
	const load = () => {
		workflow = new Workflow({
			id: workflowId,
			name: `Harness poller ${workflowId}`,
			nodes: [deepCopy(nodeTemplate)],
			connections: {},
			active: true,
			nodeTypes,
			staticData: loadStaticData(workflowId),
			settings: { executionOrder: 'v1' },
		});
	};
	const node = () => workflow.getNode(nodeName) as INode;
	const save = () => saveStaticData(workflowId, workflow.staticData);

	const runPoll = async (
		mode: 'trigger' | 'manual',
		activation: WorkflowActivateMode,
		on: Workflow = workflow,
	): Promise<IDataObject[]> => {
		const additionalData = createAdditionalData({ credentials: spec.credentials, workflowId });
		const context = new PollContext(
			on,
			on.getNode(nodeName) as INode,
			additionalData,
			mode,
			activation,
		);
		const result = (await nodeType.poll!.call(context)) as INodeExecutionData[][] | null;
		return (result?.[0] ?? []).map((item) => item.json);
	};
	const scheduledPoll = async () => {
		const items = await runPoll('trigger', 'init');
		if (items.length) save();
		return emitted(items);
	};
	const emitted = (items: IDataObject[]) => {
		if (items.length) runs.push(items);
		return items;
	};
	/**
	 * Activation and start: the poll runs, and its static data is saved whatever it returned (not
	 * when it threw: n8n then fails the activation before it saves).
	 */
	const startPoll = async (activation: WorkflowActivateMode) => {
		const items = emitted(await runPoll('trigger', activation));
		save();
		return items;
	};

	load();
	await startPoll('activate');

	return {
		workflowId,
		get savedState() {
			return deepCopy((loadStaticData(workflowId)[`node:${nodeName}`] ?? {}) as IDataObject);
		},
		get liveState() {
			const state = deepCopy((workflow.staticData[`node:${nodeName}`] ?? {}) as IDataObject);
			delete state.__dataChanged;
			return state;
		},
		get runs() {
			return runs;
		},
		get items() {
			return runs.flat();
		},
		poll: scheduledPoll,
		async pollHanded(state) {
			workflow.staticData[`node:${nodeName}`] = deepCopy(state);
			return await scheduledPoll();
		},
		async restart() {
			load();
			return await startPoll('init');
		},
		async fetchTestEvent() {
			// The editor runs the node on its own copy of the workflow: nothing is saved.
			const copy = new Workflow({
				id: workflowId,
				name: `Harness poller ${workflowId}`,
				nodes: [deepCopy(node())],
				connections: {},
				active: false,
				nodeTypes,
				staticData: loadStaticData(workflowId),
				settings: { executionOrder: 'v1' },
			});
			return await runPoll('manual', 'manual', copy);
		},
	};
}
