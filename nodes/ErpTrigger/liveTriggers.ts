// The ERP Triggers whose `trigger()` runs in this n8n process (the one that runs the workflow's
// triggers: n8n's main, or the leader in multi-main), by trigger node (`scopeOf`). A delivery
// accepted by `webhook()` in the same process is handed to the trigger's `emit`, because n8n saves
// the trigger's static data when it emits (and never what `webhook()` writes): so the identity of
// every event that runs is saved with its run (ranEvents.ts).
import type { IDataObject } from 'n8n-workflow';

export interface LiveTrigger {
	/** Starts one run with this item (the trigger's `emit`, which saves its static data first). */
	emit(item: IDataObject): void;
	/** The trigger's node static data (the memory that is saved with each emit). */
	saved(): IDataObject;
}

const live = new Map<string, LiveTrigger>();

/** Registers a running trigger; returns what removes it (when it is still the one registered). */
export function registerLiveTrigger(scope: string, trigger: LiveTrigger): () => void {
	live.set(scope, trigger);
	return () => {
		if (live.get(scope) === trigger) live.delete(scope);
	};
}

/** The trigger node's running trigger in this process, or undefined. */
export function liveTrigger(scope: string): LiveTrigger | undefined {
	return live.get(scope);
}
