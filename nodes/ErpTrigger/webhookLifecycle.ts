// Registration of the trigger's URL with the ERP (`/webhooks`), kept in the node's static data.
//
// Automatic mode:
// - checkExists: with a stored id, GET /webhooks/:id. The registration is reused when it is active,
//   has our URL and exactly our events, and we hold its secret. If it has our URL but other events
//   (or is disabled) it is deleted; if it is gone (404) or has another URL it is only forgotten.
//   A registration for another URL is never deleted from here: n8n runs these methods for the
//   editor's test URL with the production static data, and deleting the production registration
//   then would silently stop the active workflow. Then every registration with our URL is deleted:
//   the list never returns secrets, so one we hold no secret for can never be verified and would
//   only collect 401s. Returns false so that `create` runs.
// - create: POST /webhooks and store id + secret (the only time the ERP returns the secret).
// - delete: DELETE /webhooks/:id (404 is fine) and clear the static data.
// Manual mode: nothing is registered; the secret is the credential's Webhook Secret, and activation
// fails without a valid one.
import { randomUUID } from 'crypto';
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readConventions } from '../shared/conventions';
import type { ApiConventions } from '../shared/conventions';
import { unlessNotFound } from '../shared/notFound';
import { erpApiRequest, erpPaginate, getGuardedCredentials } from '../shared/transport';
import { reusedCredentialRead } from './credentialReuse';
import { normalizeEvents, sameEvents } from './events';
import { isUsableSecret } from './signature';

/** Static data keys (node scope). */
export const STATIC_KEYS = {
	id: 'webhookId',
	secret: 'webhookSecret',
	events: 'webhookEvents',
	url: 'webhookUrl',
} as const;

/** `recentIds`: where versions before 0.2.0 kept replay memory (now in process memory, replay.ts). */
const REGISTRATION_KEYS = [
	STATIC_KEYS.id,
	STATIC_KEYS.secret,
	STATIC_KEYS.events,
	STATIC_KEYS.url,
	'recentIds',
];

type TriggerContext = IHookFunctions | IWebhookFunctions;

export function isManual(context: TriggerContext): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

function clearRegistration(data: IDataObject): void {
	for (const key of REGISTRATION_KEYS) delete data[key];
}

/** DELETE /webhooks/:id; a registration that is already gone counts as deleted. */
async function deleteRemote(context: IHookFunctions, id: string): Promise<void> {
	await unlessNotFound(
		erpApiRequest.call(context, { method: 'DELETE', path: `/webhooks/${encodeURIComponent(id)}` }),
	);
}

function selectedEvents(context: IHookFunctions): string[] {
	const events = normalizeEvents(context.getNodeParameter('events', []));
	if (events.length === 0) {
		throw new NodeOperationError(context.getNode(), 'Select at least one event to listen to', {
			description: 'Choose the ERP events that should start this workflow in the Events field.',
		});
	}
	return events;
}

/** The credential's conventions (checked: a setting that cannot work fails naming it). */
async function conventionsOf(context: TriggerContext): Promise<ApiConventions> {
	return readConventions(await getGuardedCredentials(context), context.getNode());
}

/** What verification takes from the credential: its conventions and (manual mode) its secret. */
type CredentialPart = { conventions: ApiConventions; webhookSecret?: unknown };

async function credentialPart(context: TriggerContext): Promise<CredentialPart> {
	// Guarded like every request: a credential refused for API calls is refused here too.
	const credentials = await getGuardedCredentials(context);
	const conventions = readConventions(credentials, context.getNode());
	return isManual(context)
		? { conventions, webhookSecret: credentials.webhookSecret }
		: { conventions };
}

/**
 * What deliveries are verified with: the credential's conventions, and the secret (the
 * registration's in automatic mode, the credential's Webhook Secret in manual mode; undefined when
 * there is none or the signature scheme cannot use it). `part` is the credential's part, read now
 * or reused.
 */
async function verification(
	context: TriggerContext,
	part: Promise<CredentialPart>,
): Promise<{ conventions: ApiConventions; secret?: string }> {
	const { conventions, webhookSecret } = await part;
	const secret = isManual(context)
		? webhookSecret
		: context.getWorkflowStaticData('node')[STATIC_KEYS.secret];
	if (typeof secret !== 'string') return { conventions };
	const trimmed = secret.trim();
	return isUsableSecret(conventions.signature, trimmed)
		? { conventions, secret: trimmed }
		: { conventions };
}

/** For a delivery: verification with the credential read of the last seconds (credentialReuse.ts). */
export async function deliveryVerification(context: IWebhookFunctions) {
	const part = reusedCredentialRead(context, async () => await credentialPart(context));
	return await verification(context, part);
}

async function checkManual(context: IHookFunctions): Promise<boolean> {
	selectedEvents(context);
	if ((await verification(context, credentialPart(context))).secret === undefined) {
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
	const data = context.getWorkflowStaticData('node');
	if (typeof data[STATIC_KEYS.id] === 'string') {
		await deleteRemote(context, data[STATIC_KEYS.id] as string);
		clearRegistration(data);
	}
	return true;
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return await checkManual(this);

	const data = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents(this);

	const storedId = data[STATIC_KEYS.id];
	if (typeof storedId === 'string' && storedId !== '') {
		const remote = (await unlessNotFound(
			erpApiRequest.call(this, {
				method: 'GET',
				path: `/webhooks/${encodeURIComponent(storedId)}`,
				resource: `Webhook ${storedId}`,
			}),
		)) as IDataObject | undefined;
		const reusable =
			remote !== undefined &&
			remote.url === url &&
			sameEvents(remote.events, events) &&
			(remote.status === undefined || remote.status === 'active') &&
			typeof data[STATIC_KEYS.secret] === 'string';
		if (reusable) {
			data[STATIC_KEYS.url] = url;
			data[STATIC_KEYS.events] = events;
			return true;
		}
		if (remote !== undefined && remote.url === url) await deleteRemote(this, storedId);
		clearRegistration(data);
	}

	// Registrations with our URL that we hold no secret for (lost static data, an earlier failed run).
	for await (const page of erpPaginate.call(this, '/webhooks', {}, { pageSize: 100 })) {
		for (const hook of page) {
			if (hook.url === url && typeof hook.id === 'string') await deleteRemote(this, hook.id);
		}
	}
	return false;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const data = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents(this);
	const { signature } = await conventionsOf(this);
	const workflowId = this.getWorkflow().id ?? '';
	const created = (await erpApiRequest.call(this, {
		method: 'POST',
		path: '/webhooks',
		body: {
			url,
			events,
			description: `n8n workflow ${workflowId}, node "${this.getNode().name}"`.slice(0, 500),
		},
		// A fresh key per registration: a key derived from the body would make the server replay the
		// answer of an earlier, since deleted, registration with the same URL and events.
		idempotencyKey: randomUUID(),
	})) as IDataObject;

	if (typeof created?.id !== 'string' || !isUsableSecret(signature, String(created.secret ?? ''))) {
		if (typeof created?.id === 'string') await deleteRemote(this, created.id);
		throw new NodeOperationError(this.getNode(), 'The ERP did not return a webhook id and secret', {
			description:
				'POST /webhooks answered without an id or a secret the signature scheme can use (whsec_... with Standard Webhooks), so deliveries could not be verified. The registration was not kept.',
		});
	}
	data[STATIC_KEYS.id] = created.id;
	data[STATIC_KEYS.secret] = created.secret as string;
	data[STATIC_KEYS.url] = url;
	data[STATIC_KEYS.events] = events;
	return true;
}

export async function remove(this: IHookFunctions): Promise<boolean> {
	const data = this.getWorkflowStaticData('node');
	const id = data[STATIC_KEYS.id];
	if (typeof id === 'string' && id !== '') {
		try {
			await deleteRemote(this, id);
		} catch {
			// Keep the id: the next activation's checkExists finds the registration and cleans it up.
			return false;
		}
	}
	clearRegistration(data);
	return true;
}
