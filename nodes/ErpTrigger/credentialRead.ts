// The credential read of a delivery, shared by the deliveries that wait for it together (in n8n
// 2.41 a read was a third of a burst's isolates, bench P8). Deliveries that arrive while a read is
// under way share the next read, which begins when that one ends: each is checked with the
// credential as saved when it arrived or later, and every check still runs per delivery.
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import type { CredentialRead } from '../shared/transport';
import type { CredentialReads, NodeMemory } from './memory';

type Read = Promise<ICredentialDataDecryptedObject>;

const ignore = () => undefined;
const settled = (read: Read): Promise<void> => read.then(ignore, ignore);

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
 * For `getGuardedCredentials`: `read()` of this delivery's credential, or a read that begins after
 * this call and serves every delivery to the same node and credential that arrived meanwhile.
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
