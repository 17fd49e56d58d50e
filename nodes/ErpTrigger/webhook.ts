// The ERP Trigger's `webhook()` (`receive`, below), in five steps: check the signature, read the
// event, refuse a replay (and remember the delivery), hand it over to a run, answer. A step that
// refuses returns a Refusal, answered without a run.
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { ApiConventions } from '../shared/conventions';
import { valueAt } from '../shared/conventions';
import { sharedReads } from './credentialRead';
import type { Refusal } from './delivery';
import { answer, handOver } from './delivery';
import { idText, isSelected, normalizeEvents } from './events';
import type { NodeMemory } from './memory';
import { readOptions } from './options';
import { checkAndRecord } from './replay';
import { verifySignature, type WebhookHeaders } from './signature';
import { isManual, resolveVerification } from './webhookLifecycle';

export interface Signed {
	conventions: ApiConventions;
	headers: WebhookHeaders;
	rawBody: Buffer;
	/** The signed id and Unix second, when the signature scheme signs them. */
	id?: string;
	timestamp?: number;
}

const refused = (status: number, body: IDataObject): Refusal => ({ status, body });

/** Step 1: the signature, checked with the secrets `resolveVerification` gives, in order. */
export async function checkSignature(
	context: IWebhookFunctions,
	memory: NodeMemory,
	clock: { toleranceSeconds: number; nowSeconds: number },
): Promise<Signed | Refusal> {
	const req = context.getRequestObject();
	const { conventions, secret, restoredSecret } = await resolveVerification(
		context,
		memory,
		sharedReads(context, memory),
	);
	if (secret === undefined) {
		return refused(401, {
			error: 'not_configured',
			message: isManual(context)
				? 'No webhook secret is set in the credential'
				: 'This trigger holds no registration secret',
		});
	}
	// From 1.1, n8n leaves the body of a content type it does not parse unread.
	if ((req.rawBody as Buffer | undefined) === undefined) await req.readRawBody();
	// `headersDistinct` keeps duplicated headers apart (Node joins them in `headers`).
	const headers = ((req as { headersDistinct?: WebhookHeaders }).headersDistinct ??
		req.headers) as WebhookHeaders;
	const verify = (key: string) =>
		verifySignature(conventions.signature, {
			secret: key,
			headers,
			rawBody: req.rawBody,
			...clock,
		});
	let check = verify(secret);
	if (!check.ok && restoredSecret !== undefined) {
		const second = verify(restoredSecret);
		if (second.ok) check = second;
	}
	if (!check.ok) return refused(401, { error: 'invalid_signature', reason: check.reason });
	return { conventions, headers, rawBody: req.rawBody, id: check.id, timestamp: check.timestamp };
}

/** Step 2: the event in a signed delivery, with the id its replays are refused by. */
export function readDelivery(signed: Signed, selection: string[]) {
	const malformed = (message: string) => refused(400, { error: 'malformed_body', message });
	let body: unknown;
	try {
		body = JSON.parse(signed.rawBody.toString('utf8'));
	} catch {
		return malformed('The body is not valid JSON');
	}
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		return malformed('The body is not an ERP event');
	}
	const { event: conventions } = signed.conventions;
	let type: unknown;
	if (conventions.typeHeader !== undefined) {
		const found = Object.entries(signed.headers).filter(
			([name]) => name.toLowerCase() === conventions.typeHeader,
		);
		const value = found.length === 1 ? found[0][1] : undefined;
		type = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
		if (typeof type !== 'string' || type.trim() === '') {
			return malformed(`The event type header ${conventions.typeHeader} is missing`);
		}
		type = type.trim();
	} else {
		type = valueAt(body, conventions.typePath);
	}
	if (typeof type !== 'string' || type === '') {
		return malformed(`The body is not an ERP event (no text at ${conventions.typePath.join('.')})`);
	}
	const id = idText(valueAt(body, conventions.idPath));
	// The signed id (Standard Webhooks), else the event's id in the body.
	const deliveryId = signed.id ?? id;
	if (deliveryId === undefined) {
		return malformed(
			`The event has no ID at ${conventions.idPath.join('.')}, so a replay could not be refused`,
		);
	}
	if (!isSelected(selection, type)) {
		return refused(200, { received: true, ignored: 'event_not_selected' });
	}
	const item: IDataObject = {
		id: id ?? deliveryId,
		type,
		created_at: (body as IDataObject).created_at,
		data: valueAt(body, conventions.dataPath) as IDataObject['data'],
	};
	return { item, deliveryId };
}

/** Step 3: refuses a replay, else remembers it (replay.ts), from arrival if no signed time. */
export function refuseReplay(
	memory: NodeMemory,
	delivery: { id: string; signedAt?: number },
	nowSeconds: number,
	toleranceSeconds: number,
): Refusal | undefined {
	const accepted = { id: delivery.id, signedAt: delivery.signedAt ?? nowSeconds };
	switch (checkAndRecord(memory, accepted, nowSeconds, toleranceSeconds)) {
		case 'accepted':
			return undefined;
		case 'duplicate':
			return refused(200, { received: true, ignored: 'duplicate' });
		case 'full':
			return {
				...refused(503, {
					error: 'replay_memory_full',
					message: 'Too many deliveries inside the signature tolerance window; retry later',
				}),
				retryAfter: Math.min(toleranceSeconds, 60),
			};
		case 'beforeMemory':
			return refused(409, {
				error: 'signed_before_restart',
				message:
					'Signed before this n8n process started, so it cannot be checked against earlier deliveries; resend it with a new signature',
			});
	}
}

export async function receive(context: IWebhookFunctions, memory: NodeMemory) {
	const options = readOptions(context);
	const now = Math.floor(Date.now() / 1000);
	const { toleranceSeconds } = options;
	const signed = await checkSignature(context, memory, { toleranceSeconds, nowSeconds: now });
	if ('status' in signed) return answer(context, signed);
	const delivery = readDelivery(signed, normalizeEvents(context.getNodeParameter('events', [])));
	if ('status' in delivery) return answer(context, delivery);
	const replay = { id: delivery.deliveryId, signedAt: signed.timestamp };
	const refusal = refuseReplay(memory, replay, now, toleranceSeconds);
	if (refusal !== undefined) return answer(context, refusal);
	return handOver(context, memory, delivery.item, options, signed.conventions);
}
