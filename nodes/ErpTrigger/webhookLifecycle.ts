// Registration of the trigger's URL in the ERP (`/webhooks`), kept in the node's static data: n8n's
// webhook methods, and the same steps for scheduled checks (triggerRun.ts). Another URL's
// registration is never deleted here: n8n runs these methods for the editor's test URL with the
// production static data. Manual mode registers nothing (the secret is the credential's Webhook
// Secret; activation fails without it).
import { randomUUID } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readConventions } from '../shared/conventions';
import type { ApiConventions } from '../shared/conventions';
import { unlessNotFound } from '../shared/notFound';
import { erpApiRequest, erpPaginate, getGuardedCredentials } from '../shared/transport';
import type { CredentialRead } from '../shared/transport';
import { normalizeEvents } from './events';
import { readOptions } from './options';
import type { LostReason, NodeMemory } from './memory';
import { reportRestore } from './reports';
import { isUsableSecret } from './signature';

/** Static data keys (node scope). */
export const STATIC_KEYS = {
	id: 'webhookId',
	secret: 'webhookSecret',
	events: 'webhookEvents',
	url: 'webhookUrl',
} as const;

/** `recentIds`: where versions before 0.2.0 kept replay memory (now memory.ts). */
const REGISTRATION_KEYS = [...Object.values(STATIC_KEYS), 'recentIds'];

type TriggerContext = IHookFunctions | IWebhookFunctions | ITriggerFunctions;
type LifecycleContext = IHookFunctions | ITriggerFunctions;

export function isManual(context: TriggerContext): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

/** DELETE /webhooks/:id; a registration that is already gone counts as deleted. */
async function deleteRemote(context: LifecycleContext, id: string): Promise<void> {
	await unlessNotFound(
		erpApiRequest.call(context, {
			method: 'DELETE',
			path: `/webhooks/${encodeURIComponent(id)}`,
		}),
	);
}

export function selectedEvents(context: LifecycleContext): string[] {
	const events = normalizeEvents(context.getNodeParameter('events', []));
	if (events.length === 0) {
		throw new NodeOperationError(context.getNode(), 'Select at least one event to listen to', {
			description: 'Choose the ERP events that should start this workflow in the Events field.',
		});
	}
	return events;
}

/**
 * For verifying deliveries: the conventions, the usable secret (the registration's; in manual mode
 * the credential's), a scheduled check's restored one if it differs. `through`: credentialRead.ts.
 */
export async function resolveVerification(
	context: TriggerContext,
	memory: NodeMemory,
	through?: CredentialRead,
): Promise<{ conventions: ApiConventions; secret?: string; restoredSecret?: string }> {
	// Guarded like every request: a credential refused for API calls is refused here too.
	const credentials = await getGuardedCredentials(context, undefined, through);
	const conventions = readConventions(credentials, context.getNode());
	const usable = (secret: unknown) =>
		typeof secret === 'string' && isUsableSecret(conventions.signature, secret.trim())
			? secret.trim()
			: undefined;
	if (isManual(context)) return { conventions, secret: usable(credentials.webhookSecret) };
	const saved = usable(context.getWorkflowStaticData('node')[STATIC_KEYS.secret]);
	const restored = usable(memory.restoredSecret);
	return {
		conventions,
		secret: saved ?? restored,
		restoredSecret: saved !== undefined && restored !== saved ? restored : undefined,
	};
}

async function checkManual(context: IHookFunctions, memory: NodeMemory): Promise<boolean> {
	selectedEvents(context);
	if ((await resolveVerification(context, memory)).secret === undefined) {
		throw new NodeOperationError(
			context.getNode(),
			'Manual registration needs the webhook secret: set Webhook Secret in the ERP credential',
			{
				description:
					"Copy the secret the ERP showed when you registered this node's Production URL (it starts with whsec_ with Standard Webhooks signatures) into the credential's Webhook Secret field. Without it, deliveries cannot be verified, and the trigger never accepts unsigned events.",
			},
		);
	}
	// A registration left over from automatic mode would keep posting with a secret we no longer use.
	await dropRegistration(context);
	return true;
}

/** Deletes the stored registration in the ERP, if any, then forgets it (kept when that fails). */
async function dropRegistration(context: LifecycleContext): Promise<void> {
	const data = context.getWorkflowStaticData('node');
	const id = data[STATIC_KEYS.id];
	if (typeof id === 'string' && id !== '') await deleteRemote(context, id);
	for (const key of REGISTRATION_KEYS) delete data[key];
}

/** What the check found: `ok`, `none` stored, or why the stored one was lost (then forgotten). */
export type RegistrationState = 'ok' | 'none' | LostReason;

/** GET /webhooks/:id: the stored one's state; unless `ok`, forgotten (deleted if it has `url`). */
export async function inspectRegistration(
	context: LifecycleContext,
	url: string,
	events: string[],
): Promise<RegistrationState> {
	const data = context.getWorkflowStaticData('node');
	const storedId = data[STATIC_KEYS.id];
	if (typeof storedId !== 'string' || storedId === '') return 'none';
	const remote = (await unlessNotFound(
		erpApiRequest.call(context, {
			method: 'GET',
			path: `/webhooks/${encodeURIComponent(storedId)}`,
			resource: `Webhook ${storedId}`,
		}),
	)) as IDataObject | undefined;
	const lost = async (state: LostReason) => {
		if (remote !== undefined && remote.url === url) await deleteRemote(context, storedId);
		for (const key of REGISTRATION_KEYS) delete data[key];
		return state;
	};
	if (remote === undefined) return await lost('gone');
	if (remote.url !== url) return await lost('otherUrl');
	if (remote.status !== undefined && remote.status !== 'active') return await lost('disabled');
	if (JSON.stringify(normalizeEvents(remote.events)) !== JSON.stringify(events)) {
		return await lost('otherEvents');
	}
	if (typeof data[STATIC_KEYS.secret] !== 'string') return await lost('noSecret');
	data[STATIC_KEYS.url] = url;
	data[STATIC_KEYS.events] = events;
	return 'ok';
}

/** Deletes every registration with `url`: the list never returns secrets, so none is usable. */
export async function deleteOrphans(context: LifecycleContext, url: string): Promise<void> {
	for await (const page of erpPaginate.call(context, '/webhooks', {}, { pageSize: 100 })) {
		for (const hook of page) {
			if (hook.url === url && typeof hook.id === 'string') await deleteRemote(context, hook.id);
		}
	}
}

/**
 * n8n's checkExists; why the registration was lost is kept for the `create` after it. No scheduled
 * check overlaps it or that `create` (`registering`): each would find it gone and register one.
 */
export async function checkExists(context: IHookFunctions, memory: NodeMemory): Promise<boolean> {
	readOptions(context); // a bad option fails the activation, naming it
	if (isManual(context)) return await checkManual(context, memory);
	await memory.checking;
	memory.registering = true;
	let createFollows = false;
	try {
		const url = context.getNodeWebhookUrl('default') as string;
		const state = await inspectRegistration(context, url, selectedEvents(context));
		if (state === 'ok') return true;
		// Not for the editor's test URL (activation `manual`), whose registration is "another URL".
		const forTestUrl = context.getActivationMode() === 'manual';
		memory.lostAtCheck = state === 'none' || forTestUrl ? undefined : state;
		await deleteOrphans(context, url);
		createFollows = true;
		return false;
	} finally {
		memory.registering = createFollows;
	}
}

/** POST /webhooks and keep id, secret, URL and events (the only time the ERP returns the secret). */
export async function register(context: LifecycleContext, url: string, events: string[]) {
	const data = context.getWorkflowStaticData('node');
	// The credential's conventions (checked: a setting that cannot work fails naming it).
	const { signature } = readConventions(await getGuardedCredentials(context), context.getNode());
	const workflowId = context.getWorkflow().id ?? '';
	const created = (await erpApiRequest.call(context, {
		method: 'POST',
		path: '/webhooks',
		body: {
			url,
			events,
			description: `n8n workflow ${workflowId}, node "${context.getNode().name}"`.slice(0, 500),
		},
		// A fresh key per registration: a key derived from the body would make the server replay the
		// answer of an earlier, since deleted, registration with the same URL and events.
		idempotencyKey: randomUUID(),
	})) as IDataObject;

	if (typeof created?.id !== 'string' || !isUsableSecret(signature, String(created.secret ?? ''))) {
		if (typeof created?.id === 'string') await deleteRemote(context, created.id);
		throw new NodeOperationError(
			context.getNode(),
			'The ERP did not return a webhook id and secret',
			{
				description:
					'POST /webhooks answered without an id or a secret the signature scheme can use (whsec_... with Standard Webhooks), so deliveries could not be verified. The registration was not kept.',
			},
		);
	}
	data[STATIC_KEYS.id] = created.id;
	data[STATIC_KEYS.secret] = created.secret as string;
	data[STATIC_KEYS.url] = url;
	data[STATIC_KEYS.events] = events;
	return created.id;
}

export async function create(context: IHookFunctions, memory: NodeMemory): Promise<boolean> {
	if (isManual(context)) return true;
	try {
		const url = context.getNodeWebhookUrl('default') as string;
		const id = await register(context, url, selectedEvents(context));
		// A registration this trigger held and lost (at a start, or republished): never silent.
		const lost = memory.lostAtCheck;
		memory.lostAtCheck = undefined;
		if (lost !== undefined) reportRestore(context, memory, lost, id);
		return true;
	} finally {
		memory.registering = false;
	}
}

export async function remove(context: IHookFunctions): Promise<boolean> {
	// On failure the id is kept: the next activation's checkExists finds it and cleans it up.
	return await dropRegistration(context)
		.then(() => true)
		.catch(() => false);
}
