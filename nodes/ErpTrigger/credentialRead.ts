// The credential read of a delivery, shared by the deliveries that wait for it together, and
// never begun before a delivery that uses it arrived.
//
// Reading a credential from a webhook in n8n 2.41 is a database query, a decryption and a new
// expression sandbox (an isolate, built for the credential's expressions and thrown away): done
// for each of a burst of deliveries, it was a third of the sandboxes the burst cost n8n (bench P8,
// with n8n's CPU profile; see bench/performance-notes.md). Deliveries to one trigger node that
// arrive while a read is under way wait for the next read, which begins when that one ends, and
// share it: each delivery is checked with the credential as saved when it arrived or later, as if
// it had read it alone (an edited Webhook Secret applies to the next delivery), and a burst reads
// it about once per read's time instead of once per delivery. Every check still runs per delivery.
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import type { CredentialRead } from '../shared/transport';

type Read = Promise<ICredentialDataDecryptedObject>;

/** Per trigger node and credential: the read under way, and the next one, to begin after it. */
interface Slot {
	running?: Read;
	next?: Read;
	/** Deliveries waiting for `next`. */
	waiting: number;
}

const slots = new Map<string, Slot>();

const settled = async (read: Read): Promise<void> => {
	await read.then(
		() => undefined,
		() => undefined,
	);
};

function begin(key: string, slot: Slot, read: () => Read): Read {
	const running = read();
	slot.running = running;
	void settled(running).then(() => {
		if (slot.running === running) slot.running = undefined;
		if (slot.running === undefined && slot.next === undefined) slots.delete(key);
	});
	return running;
}

/**
 * For `getGuardedCredentials`: `read()` of this delivery's credential, or the result of a read
 * that begins after this call and serves every delivery to the same node and credential that
 * arrived meanwhile.
 */
export const sharedReads =
	(context: IWebhookFunctions): CredentialRead =>
	async (type, read) => {
		const node = context.getNode();
		const key = JSON.stringify([
			context.getWorkflow().id ?? '',
			node.id,
			context.getMode(),
			type,
			node.credentials?.[type] ?? null,
		]);
		return await sharedRead(key, read);
	};

async function sharedRead(key: string, read: () => Read): Read {
	let slot = slots.get(key);
	if (slot === undefined) {
		slot = { waiting: 0 };
		slots.set(key, slot);
	}
	const running = slot.running;
	if (running === undefined) return await begin(key, slot, read);
	// Under way, so begun before this delivery arrived: wait for the next one, which begins after.
	const current = slot;
	current.next ??= settled(running).then(() => {
		current.next = undefined;
		current.waiting = 0;
		slots.set(key, current);
		return begin(key, current, read);
	});
	current.waiting += 1;
	return await current.next;
}

/** Deliveries waiting for a read to begin, over all trigger nodes (for tests). */
export function waitingForCredentialRead(): number {
	let waiting = 0;
	for (const slot of slots.values()) waiting += slot.waiting;
	return waiting;
}
