/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * The ERP Trigger's `trigger()` as n8n runs it while the workflow is published (packages/cli
 * ActiveWorkflowManager / WorkflowTriggerActivator, 2.41): in n8n-core's TriggerContext (mode
 * `trigger`), at activation (`activate`) and at every start (`init`), on one `Workflow` per n8n
 * process loaded from the saved static data; static data saved after the activation or start and
 * when the node emits, **not after a scheduled tick that emits nothing**. At a start (`restart`),
 * the webhook side is activated first (checkExists, then create), as n8n 1.123 and 2.33 do; 2.41
 * runs both at once on one Workflow (`restartAtOnce`). `registerCron` is captured: each `tick()`
 * is one minute of the schedule. n8n ignores what a tick returns, and so does the harness: a tick
 * resolves when the work it started is over as n8n sees it, every call the node made to n8n
 * (requests, credential reads) answered and no new one begun for `IDLE_MS` (`idle`).
 *
 * It shares workflow id, node (id and name) and saved static data with the harness's
 * `activateTrigger`, which plays the webhook side (activation, deliveries).
 */
import { jest } from '@jest/globals';
import { HookContext, TriggerContext } from 'n8n-core';
import type {
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeParameters,
	ITriggerResponse,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { deepCopy, Workflow } from 'n8n-workflow';

import { GRACE_SECONDS } from '../../nodes/ErpTrigger/catchUp';
import { createAdditionalData, loadStaticData, saveStaticData } from '../harness/additional-data';
import { credentialRef } from '../harness/credentials';
import type { TestCredentials } from '../harness/credentials';
import { HarnessNodeTypes } from '../harness/runtime';
import { ERP_TRIGGER_TYPE } from '../harness/webhook';
import type { TriggerHandle, TriggerListener } from '../harness/webhook';
import { activate, triggerProcess } from './process';

/** The node as the harness's activateTrigger builds it (same id, so the same trigger node). */
const NODE_ID = 'harness-trigger-node';
const NODE_NAME = 'ERP Trigger';

/**
 * How long no call to n8n may begin, with none under way, before a tick's work is taken as over.
 * Longer than any wait of the node's between two calls here: the transport's pacer spaces requests
 * (a millisecond or less with these sandboxes' rate limit, UNPACED), and no tick's work in these
 * tests retries after a wait. A wait of the node's is a timer set before this one with a shorter
 * delay, so it ends, and its next call begins, before this one is read.
 */
const IDLE_MS = 30;

/** The node's calls to n8n from a trigger context (requests, credential reads): how many are under way. */
class CallWatch {
	/** Calls begun and ended so far: unchanged while the node makes no call. */
	private changes = 0;
	private underWay = 0;

	/** Counts the context's calls that return a promise, from now on. */
	watch(context: TriggerContext): void {
		const helpers = context.helpers as unknown as Record<string, unknown>;
		for (const [name, helper] of Object.entries(helpers)) {
			if (typeof helper === 'function') helpers[name] = this.counted(helper as Call);
		}
		context.getCredentials = this.counted(context.getCredentials as Call) as never;
	}

	/** Resolves once no call is under way and none began or ended for IDLE_MS. */
	async idle(): Promise<void> {
		let seen: number;
		do {
			seen = this.changes;
			await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
		} while (this.underWay > 0 || this.changes !== seen);
	}

	private counted(call: Call): Call {
		const change = (by: number) => {
			this.changes += 1;
			this.underWay += by;
		};
		return function (this: unknown, ...args) {
			const result = call.apply(this, args);
			if (!(result instanceof Promise)) return result;
			change(1);
			void result.then(
				() => change(-1),
				() => change(-1),
			);
			return result;
		};
	}
}

type Call = (...args: unknown[]) => unknown;

export interface LogLine {
	level: 'warn' | 'error' | 'info' | 'debug';
	message: string;
}

export interface PublishedTrigger {
	/**
	 * n8n stopped and started: a new process (an empty memory, `triggerProcess`) from the saved
	 * static data, the webhook side activated (checkExists, create), then `trigger()` at `init`.
	 */
	restart(): Promise<void>;
	/**
	 * n8n 2.41's start (WorkflowTriggerActivator): a new process, then the webhook side (checkExists,
	 * then create) and `trigger()` at once on one Workflow, saved after both. The first tick comes
	 * while the webhook side runs: begun just before the tick, or (`tickFirst`) just after it.
	 */
	restartAtOnce(options: { tickFirst: boolean }): Promise<void>;
	/** `minutes` minutes of the schedule, one tick each; resolves when their work is over (`idle`). */
	tick(minutes?: number): Promise<void>;
	/** What the node logged, and the failed executions it saved. */
	readonly logs: LogLine[];
	readonly failures: Error[];
	/** Every item the node emitted, in order. */
	readonly emitted: IDataObject[];
	/** The node's static data in the running process. */
	readonly liveState: IDataObject;
	/** How many times n8n saved the static data. */
	readonly saves: number;
}

export async function publishTrigger(spec: {
	workflowId: string;
	parameters: INodeParameters;
	credentials: TestCredentials;
	/** The first `trigger()`: at activation (default) or at a start. */
	activation?: WorkflowActivateMode;
	/** The webhook URL the webhook side registers at a start (its activateTrigger's). */
	webhookUrl?: string;
}): Promise<PublishedTrigger> {
	const nodeTypes = new HarnessNodeTypes(triggerProcess.nodeTypes);
	const nodeType = nodeTypes.getByNameAndVersion(ERP_TRIGGER_TYPE);
	const credentials: INode['credentials'] = {};
	for (const { name } of nodeType.description.credentials ?? []) {
		if (spec.credentials.has(name)) credentials[name] = credentialRef(name);
	}
	const logs: LogLine[] = [];
	const failures: Error[] = [];
	const emitted: IDataObject[] = [];
	let saves = 0;
	let ticks: Array<(at: Date) => unknown> = [];
	let workflow: Workflow;
	const calls = new CallWatch();

	const save = () => {
		saveStaticData(spec.workflowId, workflow.staticData);
		saves += 1;
	};
	const logger = (level: LogLine['level']) => (message: string) => logs.push({ level, message });

	const tickAll = async () => {
		for (const onTick of ticks) onTick(new Date());
		await calls.idle();
	};

	const start = async (activation: WorkflowActivateMode, atOnce?: { tickFirst: boolean }) => {
		ticks = [];
		workflow = triggerWorkflow(spec, nodeTypes, {
			name: `Harness published trigger ${spec.workflowId}`,
			credentials,
			active: true,
			staticData: loadStaticData(spec.workflowId),
		});
		const node = workflow.getNode(NODE_NAME) as INode;
		const additionalData = createAdditionalData({
			credentials: spec.credentials,
			workflowId: spec.workflowId,
		});
		const emit = (data: INodeExecutionData[][]) => {
			// n8n saves the static data before the run starts.
			save();
			emitted.push(...(data[0] ?? []).map((item) => item.json));
		};
		const context = new TriggerContext(
			workflow,
			node,
			additionalData,
			'trigger',
			activation,
			emit,
			(error: Error) => failures.push(error),
			(error: Error) => failures.push(error),
			{ registerCron: (_cron, onTick) => void ticks.push(onTick) },
		);
		calls.watch(context);
		Object.defineProperty(context, 'logger', {
			value: {
				warn: logger('warn'),
				error: logger('error'),
				info: logger('info'),
				debug: logger('debug'),
			},
		});
		if (atOnce === undefined) {
			(await nodeType.trigger!.call(context)) as ITriggerResponse;
		} else {
			const webhookSide = async () =>
				await createIfNotExists(workflow, additionalData, 'trigger', activation, spec.webhookUrl);
			let hook = atOnce.tickFirst ? undefined : webhookSide();
			await nodeType.trigger!.call(context);
			const tick = tickAll();
			hook ??= webhookSide();
			await Promise.all([hook, tick]);
		}
		save();
	};

	await start(spec.activation ?? 'activate');
	return {
		async restart() {
			triggerProcess.restart();
			await activate({
				parameters: spec.parameters,
				credentials: spec.credentials,
				workflowId: spec.workflowId,
				webhookUrl: spec.webhookUrl,
			});
			await start('init');
		},
		async restartAtOnce(options) {
			triggerProcess.restart();
			await start('init', options);
		},
		async tick(minutes = 1) {
			for (let i = 0; i < minutes; i++) await tickAll();
		},
		logs,
		failures,
		emitted,
		get liveState() {
			const state = deepCopy((workflow.staticData[`node:${NODE_NAME}`] ?? {}) as IDataObject);
			delete state.__dataChanged;
			return state;
		},
		get saves() {
			return saves;
		},
	};
}

/**
 * The editor's "Listen for test event" on a published trigger, as n8n's TestWebhooks registers the
 * test URL: `checkExists`, then `create`, in a HookContext with mode and activation `manual`, on a
 * copy of the workflow with the production static data, nothing saved. Returns the test URL.
 */
export async function listenForTestEvent(spec: {
	workflowId: string;
	parameters: INodeParameters;
	credentials: TestCredentials;
}): Promise<string> {
	const nodeTypes = new HarnessNodeTypes(triggerProcess.nodeTypes);
	const workflow = triggerWorkflow(spec, nodeTypes, {
		name: `Harness test run ${spec.workflowId}`,
		credentials: { erpApi: credentialRef('erpApi') },
		active: false,
		staticData: deepCopy(loadStaticData(spec.workflowId)),
	});
	const additionalData = createAdditionalData({
		credentials: spec.credentials,
		workflowId: spec.workflowId,
	});
	return await createIfNotExists(workflow, additionalData, 'manual', 'manual');
}

/**
 * n8n's createWebhookIfNotExists for the trigger node of `workflow`: checkExists, then create when
 * it returned false, in a HookContext (`url`: the production URL the harness listens on). Returns
 * the webhook URL.
 */
async function createIfNotExists(
	workflow: Workflow,
	additionalData: ReturnType<typeof createAdditionalData>,
	mode: 'trigger' | 'manual',
	activation: WorkflowActivateMode,
	url?: string,
): Promise<string> {
	const nodeType = workflow.nodeTypes.getByNameAndVersion(ERP_TRIGGER_TYPE);
	const node = workflow.getNode(NODE_NAME) as INode;
	const webhookDescription = nodeType.description.webhooks![0];
	const context = new HookContext(workflow, node, additionalData, mode, activation, {
		httpMethod: webhookDescription.httpMethod as IHttpRequestMethods,
		node: NODE_NAME,
		path: String(webhookDescription.path),
		webhookDescription,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
		isTest: mode === 'manual',
	});
	if (url !== undefined) context.getNodeWebhookUrl = () => url;
	const methods = nodeType.webhookMethods!.default!;
	if (!(await methods.checkExists.call(context))) await methods.create.call(context);
	return context.getNodeWebhookUrl('default') as string;
}

/** A workflow of one ERP Trigger node with `spec`'s parameters, as the harness runs it. */
function triggerWorkflow(
	spec: { workflowId: string; parameters: INodeParameters },
	nodeTypes: HarnessNodeTypes,
	options: {
		name: string;
		credentials: INode['credentials'];
		active: boolean;
		staticData: IDataObject;
	},
): Workflow {
	return new Workflow({
		id: spec.workflowId,
		name: options.name,
		nodes: [
			{
				id: NODE_ID,
				name: NODE_NAME,
				type: ERP_TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: deepCopy(spec.parameters),
				credentials: options.credentials,
				webhookId: `${spec.workflowId}-webhook`,
			},
		],
		connections: {},
		active: options.active,
		nodeTypes,
		staticData: options.staticData,
		settings: { executionOrder: 'v1' },
	});
}

/** A published trigger with its webhook side: as n8n runs both in one process. */
export interface PublishedWithWebhook {
	hook: TriggerHandle;
	listener: TriggerListener;
	trigger: PublishedTrigger;
}

/** The webhook side listening (activation: checkExists, create), then `trigger()` at activation. */
export async function publishWithWebhook(spec: {
	workflowId: string;
	parameters: INodeParameters;
	credentials: TestCredentials;
}): Promise<PublishedWithWebhook> {
	const hook = await activate({ ...spec, listen: true });
	const listener = await hook.listen();
	const trigger = await publishTrigger({ ...spec, webhookUrl: hook.webhookUrl });
	return { hook, listener, trigger };
}

/**
 * The items of every run the trigger node started: by the trigger's emit when the trigger runs in
 * this process (nodes/ErpTrigger/delivery.ts), else by `webhook()` itself (each list in order).
 */
export const runItems = ({
	listener,
	trigger,
}: Omit<PublishedWithWebhook, 'hook'>): IDataObject[] => [
	...listener.runs.map((run) => run[0].json),
	...trigger.emitted,
];

/** A reading of `runItems` for expectCount. */
export const runCount = (runs: Omit<PublishedWithWebhook, 'hook'>) => async () => {
	const items = runItems(runs);
	return { count: items.length, detail: items };
};

/**
 * Moves `Date` (the node's and the sandbox's clock) `seconds` on; it keeps running from there.
 * Timers are not faked: the harness and the sandbox keep their real ones.
 */
export function advanceClock(seconds: number): void {
	const now = Date.now();
	jest.useFakeTimers({
		advanceTimers: true,
		doNotFake: [
			'setTimeout',
			'clearTimeout',
			'setInterval',
			'clearInterval',
			'setImmediate',
			'clearImmediate',
			'nextTick',
			'queueMicrotask',
			'hrtime',
			'performance',
		],
	});
	jest.setSystemTime(now + seconds * 1000);
}

/** Moves `Date` past the grace (advanceClock). */
export const pastTheGrace = (): void => advanceClock(GRACE_SECONDS + 1);
