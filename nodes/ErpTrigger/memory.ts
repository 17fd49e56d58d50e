// What a trigger node remembers in this n8n process: one NodeMemory per node (by workflow and node
// id) in one TriggerMemory per process, the triggers' only module-level state. A restart empties
// it; what must survive one is in static data. A test passes its own, as a new process would.
import type {
	FunctionsBase,
	IDataObject,
	ICredentialDataDecryptedObject,
	INodeExecutionData,
} from 'n8n-workflow';

/** Why a stored registration could not be kept (webhookLifecycle.ts, `inspectRegistration`). */
export type LostReason = 'gone' | 'disabled' | 'otherUrl' | 'otherEvents' | 'noSecret';

/** A credential read shared by deliveries (credentialRead.ts): the one under way, the next. */
export interface CredentialReads {
	running?: Promise<ICredentialDataDecryptedObject>;
	next?: Promise<ICredentialDataDecryptedObject>;
}

export interface NodeMemory {
	readonly limits: MemoryLimits;
	/** Accepted deliveries, id -> signed Unix second, in the order accepted (replay.ts). */
	accepted: Map<string, number>;
	/** Size of `accepted` at which the next sweep of old entries runs (replay.ts). */
	nextSweepAt: number;
	/** Events that ran, identity -> Unix second (ranEvents.ts): the newest `maxRanEvents`. */
	ran: Map<string, number>;
	/** The counted size of each saved memory object of the static data (ranEvents.ts). */
	savedSizes: WeakMap<object, number>;
	/** A restore not yet reported in an item (reports.ts): when, why, the new registration's id. */
	restoreNote?: { restored_at: string; reason: LostReason; webhook_id: string };
	/** A scheduled check's restored secret, also tried on deliveries (n8n does not save it then). */
	restoredSecret?: string;
	/** Why checkExists found the registration lost, for the `create` n8n runs right after it. */
	lostAtCheck?: LostReason;
	/** n8n's checkExists and the create after it are under way (webhookLifecycle.ts). */
	registering: boolean;
	/** The scheduled registration check under way, which checkExists waits for (triggerRun.ts). */
	checking?: Promise<void>;
	/** Credential reads shared by deliveries, by mode, type and credential (credentialRead.ts). */
	credentialReads: Map<string, CredentialReads>;
	/** The trigger running in this process (triggerRun.ts): its `emit`, its static data. */
	live?: { emit(item: IDataObject): void; saved(): IDataObject };
	/** A test delivery accepted by `webhook()`, until the manual trigger emits it (triggerRun.ts). */
	testDelivery?: INodeExecutionData[][];
	/** Warnings already logged, by kind (delivery.ts): once per process. */
	warned: Set<string>;
	/** The ERP Polling Trigger's poll is running (ErpPollingTrigger/poll.ts). */
	polling: boolean;
	/** The ERP Polling Trigger's state before and after its last poll that emitted items, as JSON. */
	lastEmit?: { before: string; after: string };
}

export interface MemoryLimits {
	/** Unix second the memory began: deliveries signed earlier are refused (default: now). */
	since: number;
	/** Most accepted deliveries inside the tolerance held per node (default 100,000). */
	maxLive: number;
	/** Most accepted deliveries past the tolerance kept per node (default 1,000). */
	maxRetired: number;
	/** Most events that ran kept per node, in the process and in the static data (default 10,000). */
	maxRanEvents: number;
}

export const DEFAULT_LIMITS: Omit<MemoryLimits, 'since'> = {
	maxLive: 100_000,
	maxRetired: 1_000,
	maxRanEvents: 10_000,
};

export class TriggerMemory {
	readonly limits: MemoryLimits;

	private readonly nodes = new Map<string, NodeMemory>();

	constructor(limits: Partial<MemoryLimits> = {}) {
		this.limits = { since: Math.floor(Date.now() / 1000), ...DEFAULT_LIMITS, ...limits };
	}

	node(key: string): NodeMemory {
		let memory = this.nodes.get(key);
		if (memory === undefined) {
			memory = {
				limits: this.limits,
				accepted: new Map(),
				nextSweepAt: this.limits.maxRetired + 1,
				ran: new Map(),
				savedSizes: new WeakMap(),
				credentialReads: new Map(),
				warned: new Set(),
				registering: false,
				polling: false,
			};
			this.nodes.set(key, memory);
		}
		return memory;
	}

	/** The memory of the context's node, by its one key: workflow id and node id. */
	of(context: Pick<FunctionsBase, 'getWorkflow' | 'getNode'>): NodeMemory {
		return this.node(`${context.getWorkflow().id ?? ''}/${context.getNode().id}`);
	}
}

/** The memory of n8n's nodes (built with no argument), begun when n8n loads them. */
export const processMemory = new TriggerMemory();
