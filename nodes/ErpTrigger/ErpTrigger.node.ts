// The ERP Trigger: a webhook the node registers in the ERP, each signed delivery checked and run
// once. webhook.ts: `webhook()`; webhookLifecycle.ts: the registration in the ERP; triggerRun.ts:
// `trigger()` (test run, scheduled registration check and catch-up); memory.ts: what it remembers.
import type {
	IHookFunctions,
	INodeType,
	ITriggerFunctions,
	INodeTypeDescription,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	authenticationDescription,
	erpCredentialsDescription,
	erpIcon,
} from '../shared/descriptions';
import { eventsProperties } from './events';
import type { NodeMemory, TriggerMemory } from './memory';
import { processMemory } from './memory';
import { optionsDescription } from './options';
import { runTrigger } from './triggerRun';
import { receive } from './webhook';
import { checkExists, create, remove } from './webhookLifecycle';

export class ErpTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'ERP Trigger',
		name: 'erpTrigger',
		icon: erpIcon,
		group: ['trigger'],
		// 1.1: n8n evaluates an expression (its legacy Binary Data option) on every request to a
		// version-1 webhook node, not at 1.1 (bench P8), and leaves a body it does not parse unread.
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
				// An accepted delivery gets 200 with no body (n8n 2.41 would answer "firstEntryJson").
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
			...eventsProperties,
			optionsDescription,
		],
	};

	/** `memory`: what the node remembers in this n8n process (memory.ts). n8n passes nothing. */
	constructor(readonly memory: TriggerMemory = processMemory) {}

	trigger = withMemory(this, runTrigger);

	webhook = withMemory(this, receive);

	/** Registration in the ERP at activation, start and deactivation (webhookLifecycle.ts). */
	webhookMethods = { default: registrationMethods(this) };
}

// A function: n8n's lint rule webhook-lifecycle-complete does not recognise methods built in place.
function registrationMethods(node: ErpTrigger) {
	return {
		checkExists: withMemory(node, checkExists),
		create: withMemory(node, create),
		delete: withMemory(node, remove),
	};
}

/** A method n8n calls with its context as `this`: `run` with that context and the node's memory. */
function withMemory<C extends ITriggerFunctions | IWebhookFunctions | IHookFunctions, R>(
	node: ErpTrigger,
	run: (context: C, memory: NodeMemory) => Promise<R>,
) {
	return async function (this: C): Promise<R> {
		return await run(this, node.memory.of(this));
	};
}
