// What a delivery needs from the ERP credential, read once for the deliveries of a few seconds.
//
// Reading a credential in n8n 2.41 is a database query, a decryption and the credential's
// expressions resolved in a new expression sandbox. Done for every delivery, it made a burst of
// signed deliveries take about twice as long as n8n's own Webhook node (bench P8, with n8n's CPU
// profile: the credential read was the largest cost of the trigger's own). The trigger node keeps
// what it read for CREDENTIAL_REUSE_MS per trigger node and credential, in this n8n process's
// memory only. Every delivery is still checked in full (signature, timestamp, replay memory).
import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * How long one read serves deliveries: an edited credential (a new Webhook Secret, a value the
 * guards now refuse) applies to deliveries at most this much later.
 */
export const CREDENTIAL_REUSE_MS = 5_000;

type Read<T> = { at: number; value: Promise<T> };
const reads = new Map<string, Read<unknown>>();

/** `read()`'s value, shared by the deliveries of the last CREDENTIAL_REUSE_MS to this node. */
export async function reusedCredentialRead<T>(
	context: IWebhookFunctions,
	read: () => Promise<T>,
): Promise<T> {
	const node = context.getNode();
	const key = JSON.stringify([
		context.getWorkflow().id ?? '',
		node.id,
		context.getNodeParameter('authentication', 'apiKey'),
		node.credentials ?? {},
	]);
	const now = Date.now();
	// Kept reads expire; so does one from the future (the system clock was set back).
	for (const [known, entry] of reads)
		if (now - entry.at >= CREDENTIAL_REUSE_MS || now < entry.at) reads.delete(known);
	const kept = reads.get(key) as Read<T> | undefined;
	if (kept !== undefined) return await kept.value;
	const entry: Read<T> = { at: now, value: read() };
	reads.set(key, entry);
	// A failed read is not kept: the next delivery reads again (and fails the same way, or not).
	entry.value.catch(() => {
		if (reads.get(key) === entry) reads.delete(key);
	});
	return await entry.value;
}
