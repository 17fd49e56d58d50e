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
import type { CredentialReads, NodeMemory } from './memory';

type Read = Promise<ICredentialDataDecryptedObject>;

const settled = async (read: Read): Promise<void> => {
	await read.then(
		() => undefined,
		() => undefined,
	);
};

function begin(
	reads: Map<string, CredentialReads>,
	key: string,
	slot: CredentialReads,
	read: () => Read,
): Read {
	const running = read();
	slot.running = running;
	void settled(running).then(() => {
		if (slot.running === running) slot.running = undefined;
		if (slot.running === undefined && slot.next === undefined) reads.delete(key);
	});
	return running;
}

/**
 * For `getGuardedCredentials`: `read()` of this delivery's credential, or the result of a read
 * that begins after this call and serves every delivery to the same node and credential that
 * arrived meanwhile (kept in the node's memory, `credentialReads`).
 */
export const sharedReads =
	(context: IWebhookFunctions, memory: NodeMemory): CredentialRead =>
	async (type, read) => {
		const reads = memory.credentialReads;
		const key = JSON.stringify([
			context.getMode(),
			type,
			context.getNode().credentials?.[type] ?? null,
		]);
		let slot = reads.get(key);
		if (slot === undefined) {
			slot = {};
			reads.set(key, slot);
		}
		const running = slot.running;
		if (running === undefined) return await begin(reads, key, slot, read);
		// Under way, so begun before this delivery arrived: wait for the next one, which begins after.
		const current = slot;
		current.next ??= settled(running).then(() => {
			current.next = undefined;
			reads.set(key, current);
			return begin(reads, key, current, read);
		});
		return await current.next;
	};
