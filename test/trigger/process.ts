// The ERP Trigger as one n8n process runs it, for the harness's node types: its own memory
// (nodes/ErpTrigger/memory.ts), begun at 0 unless told otherwise, because these tests sign
// deliveries in the past and the test process is younger than that (see "signed before n8n
// started" in deliveries.test.ts). `restart()` plays a new n8n process: an empty memory, with
// other limits if given (kept by the next restarts), for every trigger built with `nodeTypes` from then on (webhook side and
// trigger side alike, as one process runs both).
import type { INodeType, IVersionedNodeType } from 'n8n-workflow';

import { ErpTrigger } from '../../nodes/ErpTrigger/ErpTrigger.node';
import type { MemoryLimits } from '../../nodes/ErpTrigger/memory';
import { TriggerMemory } from '../../nodes/ErpTrigger/memory';
import { activateTrigger, ERP_TRIGGER_TYPE } from '../harness/webhook';
import type { TriggerHandle, TriggerSpec } from '../harness/webhook';

export class TriggerProcess {
	private node: ErpTrigger;

	constructor(private limits: Partial<MemoryLimits> = {}) {
		this.node = new ErpTrigger(new TriggerMemory({ since: 0, ...limits }));
	}

	/** What the node remembers in this process. */
	get memory(): TriggerMemory {
		return this.node.memory;
	}

	/** A new process: an empty memory, with new `limits` when given (else the last ones). */
	restart(limits: Partial<MemoryLimits> = this.limits): void {
		this.limits = limits;
		this.node = new ErpTrigger(new TriggerMemory({ since: 0, ...limits }));
	}

	/** For the harness (`extraNodeTypes`): the ERP Trigger of the process running now. */
	readonly nodeTypes: Record<string, INodeType | IVersionedNodeType> = {
		[ERP_TRIGGER_TYPE]: new Proxy({} as INodeType, {
			get: (_target, key) => Reflect.get(this.node, key) as unknown,
			has: (_target, key) => Reflect.has(this.node, key),
		}),
	};
}

/** The test file's n8n process (jest gives each test file its own modules). */
export const triggerProcess = new TriggerProcess();

/** The harness's activateTrigger, in the test file's process. */
export async function activate(spec: TriggerSpec): Promise<TriggerHandle> {
	return await activateTrigger({ extraNodeTypes: triggerProcess.nodeTypes, ...spec });
}
