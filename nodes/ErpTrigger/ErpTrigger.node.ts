import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	ITriggerFunctions,
	ITriggerResponse,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	authenticationDescription,
	erpCredentialsDescription,
	erpIcon,
} from '../shared/descriptions';
import {
	ALL_EVENTS,
	ERP_EVENTS,
	EVENT_OPTIONS,
	isSelected,
	normalizeEvents,
	readEvent,
	RESTRICTED_EVENTS,
	RESTRICTED_SCOPE,
	SCOPES_BY_TOPIC,
} from './events';
import { sharedReads } from './credentialRead';
import { verifySignature, type WebhookHeaders } from './signature';
import { replayMemory } from './replay';
import { optionsDescription, readOptions } from './options';
import { answer } from './answer';
import { deliverOnce } from './delivery';
import { handOverTestDelivery, runTrigger } from './triggerRun';
import {
	checkExists,
	create,
	isManual,
	remove,
	resolveVerification,
	scopeOf,
} from './webhookLifecycle';

/** Delivery headers never copied into the output item. */
const HIDDEN_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

export class ErpTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'ERP Trigger',
		name: 'erpTrigger',
		icon: erpIcon,
		group: ['trigger'],
		// 1.1: n8n evaluates an expression on every request to a version-1 webhook node (its legacy
		// Binary Data option, in an expression isolate), and at 1.1 it does not: bench P8. It then
		// reads a body it does not parse only when the node asks (webhook(), below).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description:
			'Starts the workflow on ERP events (sales, paid invoices, low stock, payroll, VAT), verifying each signed delivery',
		defaults: {
			name: 'ERP Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: erpCredentialsDescription,
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// An accepted delivery gets 200 with no body (n8n 2.41 would otherwise answer with the
				// text "firstEntryJson").
				responseData: 'noData',
				path: 'erp',
			},
		],
		properties: [
			authenticationDescription,
			{
				displayName: 'Registration',
				name: 'registration',
				type: 'options',
				options: [
					{
						name: 'Automatic',
						value: 'automatic',
						description:
							'The node registers its URL with the ERP when the workflow is activated and removes it when deactivated',
					},
					{
						name: 'Manual',
						value: 'manual',
						description:
							"You register the URL in the ERP's settings yourself and put the secret it shows in the credential",
					},
				],
				default: 'automatic',
			},
			{
				displayName:
					"In the ERP, open the webhook settings and add a webhook with this node's Production URL (under Webhook URLs above) and the same events. Copy the secret the ERP shows (it starts with whsec_) into the credential's Webhook Secret field. The workflow will not activate without it: unsigned events are never accepted.",
				name: 'manualNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { registration: ['manual'] } },
			},
			{
				displayName:
					"Each delivery starts at most one run: replays are refused by the n8n process that receives this trigger's webhooks. In queue mode with several webhook processes, send this trigger's path to one of them (see the guide Production recipes, docs/production-recipes.md). With a body HMAC signature without a timestamp header (credential's Custom API Conventions), a replayed event ID is still refused while this process remembers it, but an old delivery cannot be refused for its age.",
				name: 'replayNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName:
					"While the workflow is published, this trigger checks its registration in the ERP at every n8n start and activation and every Registration Check Interval (Options; default 15 minutes, one request per check), and registers again when it was deleted, disabled or changed in the ERP: the restore is logged in n8n's log and reported in the next event's item (registration). At the same interval it catches up, from the ERP's lists, the Sale Created, Invoice Paid and Stock Low events the webhook missed, each run once (item field caught_up; Options, Catch Up Missed Events). Payroll Validated and VAT Return Filed have no list: those missed cannot be caught up. One workflow is enough: do not run an ERP Polling Trigger next to this one, it would post each alert twice.",
				name: 'deliveryNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				default: [],
				required: true,
				description: `The events that start the workflow. Each needs a read scope on the credential: ${SCOPES_BY_TOPIC}.`,
			},
			{
				displayName: `${RESTRICTED_EVENTS.map((event) => ERP_EVENTS[event].name).join(', ')} needs the restricted ${RESTRICTED_SCOPE} scope, which the ERP grants on request. Without it on this API key or OAuth2 connection, activation fails with a permission error naming the scope.`,
				name: 'payrollScopeNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { events: [...RESTRICTED_EVENTS, ALL_EVENTS] } },
			},
			optionsDescription,
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await runTrigger(this);
	}

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				readOptions(this);
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const options = readOptions(this);
		const { toleranceSeconds } = options;

		const { secret, restoredSecret, conventions } = await resolveVerification(
			this,
			sharedReads(this),
		);
		if (secret === undefined) {
			return answer(this, 401, {
				error: 'not_configured',
				message: isManual(this)
					? 'No webhook secret is set in the credential'
					: 'This trigger holds no registration secret',
			});
		}

		// From 1.1, n8n leaves the body of a content type it does not parse unread.
		if ((req.rawBody as Buffer | undefined) === undefined) await req.readRawBody();
		// `headersDistinct` keeps duplicated headers apart (Node joins them in `headers`).
		const headers = ((req as { headersDistinct?: WebhookHeaders }).headersDistinct ??
			req.headers) as WebhookHeaders;
		const nowSeconds = Math.floor(Date.now() / 1000);
		const verify = (key: string) =>
			verifySignature(conventions.signature, {
				secret: key,
				headers,
				rawBody: req.rawBody,
				toleranceSeconds,
				nowSeconds,
			});
		let check = verify(secret);
		// A registration restored by a scheduled check, whose secret n8n has not saved yet.
		if (!check.ok && restoredSecret !== undefined) {
			const second = verify(restoredSecret);
			if (second.ok) check = second;
		}
		if (!check.ok) return answer(this, 401, { error: 'invalid_signature', reason: check.reason });

		let body: unknown;
		try {
			body = JSON.parse(req.rawBody.toString('utf8'));
		} catch {
			return answer(this, 400, { error: 'malformed_body', message: 'The body is not valid JSON' });
		}
		const event = readEvent(body, headers, conventions.event);
		if (!event.ok) return answer(this, 400, { error: 'malformed_body', message: event.message });
		// The replay memory's key: the signed id (Standard Webhooks), else the event's id in the body.
		const deliveryId = check.id ?? event.id;
		if (deliveryId === undefined) {
			return answer(this, 400, {
				error: 'malformed_body',
				message: `The event has no ID at ${conventions.event.idPath.join('.')}, so a replay could not be refused`,
			});
		}

		const selection = normalizeEvents(this.getNodeParameter('events', []));
		if (!isSelected(selection, event.type)) {
			return answer(this, 200, { received: true, ignored: 'event_not_selected' });
		}

		// Check and record in one synchronous step: no await between them (see replay.ts). A scheme
		// without a signed timestamp is remembered from its arrival: a replayed id is still refused,
		// an old delivery never seen (or forgotten) cannot be.
		const scope = scopeOf(this);
		const verdict = replayMemory.checkAndRecord(
			scope,
			{ id: deliveryId, t: check.timestamp ?? nowSeconds },
			nowSeconds,
			toleranceSeconds,
		);
		if (verdict === 'duplicate') {
			return answer(this, 200, { received: true, ignored: 'duplicate' });
		}
		if (verdict === 'full') {
			this.getResponseObject().setHeader('Retry-After', String(Math.min(toleranceSeconds, 60)));
			return answer(this, 503, {
				error: 'replay_memory_full',
				message: 'Too many deliveries inside the signature tolerance window; retry later',
			});
		}
		if (verdict === 'beforeMemory') {
			return answer(this, 409, {
				error: 'signed_before_restart',
				message:
					'Signed before this n8n process started, so it cannot be checked against earlier deliveries; resend it with a new signature',
			});
		}

		const item: IDataObject = {
			id: event.id ?? deliveryId,
			type: event.type,
			created_at: event.created_at as IDataObject['created_at'],
			data: event.data as IDataObject['data'],
		};
		if (options.includeHeaders) {
			const kept: IDataObject = {};
			for (const [name, value] of Object.entries(req.headers)) {
				if (!HIDDEN_HEADERS.has(name.toLowerCase())) kept[name] = value as string | string[];
			}
			item.headers = kept;
		}
		if (this.getMode() !== 'manual')
			return deliverOnce(this, scope, item, options, conventions.event);
		// A test run starts at this node's manual trigger, which emits this (triggerRun.ts).
		const workflowData = [[{ json: item }]];
		handOverTestDelivery(scope, workflowData);
		return { workflowData };
	}
}
