// The credential read of a delivery, shared by the deliveries that wait for it together (in n8n
// 2.41 a read was a third of a burst's isolates, bench P8). Deliveries that arrive while a read is
// under way share the next read, which begins when that one ends: each is checked with the
// credential as saved when it arrived or later, and every check still runs per delivery.
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import type { CredentialRead } from '../shared/transport';
import type { CredentialReads, NodeMemory } from './memory';

type Read = Promise<ICredentialDataDecryptedObject>;

const ignore = () => undefined;

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
		const slot: CredentialReads = reads.get(key) ?? {};
		reads.set(key, slot);
		// The read under way until it ends; then the slot is forgotten unless another one follows.
		const begin = (): Read => {
			const running = read();
			slot.running = running;
			void running.then(ignore, ignore).then(() => {
				if (slot.running === running) slot.running = undefined;
				if (slot.running === undefined && slot.next === undefined) reads.delete(key);
			});
			return running;
		};
		const running = slot.running;
		if (running === undefined) return await begin();
		// Under way, so begun before this delivery arrived: wait for the next one, which begins after.
		slot.next ??= running.then(ignore, ignore).then(() => {
			slot.next = undefined;
			reads.set(key, slot);
			return begin();
		});
		return await slot.next;
	};
