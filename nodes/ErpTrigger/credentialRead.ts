// Deliveries waiting together share one credential read (in n8n 2.41 a read was a third of a
// burst's isolates, bench P8). Those arriving while a read is under way share the next, begun when
// it ends: each is checked, one by one, with the credential as saved at its arrival or later.
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import type { CredentialRead } from '../shared/transport';
import type { CredentialReads, NodeMemory } from './memory';

type Read = Promise<ICredentialDataDecryptedObject>;

const ignore = () => undefined;

/** For `getGuardedCredentials`: the read shared by deliveries to this node, mode and credential. */
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
