/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// P5 webhook checking. (1) Signature verifications per second on 1 KB bodies: our pure
// verifyStandardWebhook as it ships (compiled by TypeScript, see shipped.ts), alternated with the
// `standardwebhooks` reference library (which also parses the JSON) and a bare HMAC-SHA256 +
// constant-time compare (the floor). (2) Trigger handling
// time per event: a signed delivery through the harness's deliver(), i.e. n8n's webhook path:
// body parsing, the trigger's webhook() (secret, signature, replay memory) and the workflow run.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import { Webhook } from 'standardwebhooks';

import type * as Signature from '../../nodes/ErpTrigger/signature';
import { DEMO_KEYS, UNPACED } from '../../sandbox';
import { TestCredentials, activateTrigger } from '../../test/harness';
import { startBenchSandbox } from '../sandbox';
import { loadAsShipped } from '../shipped';
import { alternate, summarize } from '../stats';
import type { Summary } from '../stats';
import type { FigureContext } from './types';

export const BODY_BYTES = 1024;

export interface P5Result {
	bodyBytes: number;
	verify: { ours: Summary; library: Summary; hmac: Summary };
	trigger: { eventsPerRound: number; rounds: number; msPerEvent: Summary };
}

/** A JSON event body of exactly `size` bytes (padded in data.note). */
function eventBody(id: string, size: number): string {
	const event = {
		id,
		type: 'vente.creee',
		created_at: new Date().toISOString(),
		data: { id: 'fac_00000001', total_ttc: 12000, note: '' },
	};
	const bare = Buffer.byteLength(JSON.stringify(event));
	event.data.note = 'x'.repeat(Math.max(0, size - bare));
	return JSON.stringify(event);
}

function signedDelivery(secret: string, size: number) {
	const id = `evt_${randomBytes(12).toString('hex')}`;
	const timestamp = Math.floor(Date.now() / 1000);
	const body = eventBody(id, size);
	const signature = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
	const headers = {
		'content-type': 'application/json',
		'webhook-id': id,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': signature,
	};
	return { id, timestamp, body, headers };
}

/** Calls `check` in batches for at least `ms` and returns calls per second; every call must pass. */
function throughput(check: () => boolean, ms: number): number {
	let calls = 0;
	const start = performance.now();
	let elapsed = 0;
	while (elapsed < ms) {
		for (let i = 0; i < 1000; i++) {
			if (!check()) throw new Error('a verification failed on a valid delivery');
		}
		calls += 1000;
		elapsed = performance.now() - start;
	}
	return calls / (elapsed / 1000);
}

async function verificationRate(context: FigureContext): Promise<P5Result['verify']> {
	const secret = `whsec_${randomBytes(32).toString('base64')}`;
	const delivery = signedDelivery(secret, BODY_BYTES);
	if (Buffer.byteLength(delivery.body) !== BODY_BYTES) throw new Error('P5 body is not 1 KB');
	const rawBody = Buffer.from(delivery.body);
	const library = new Webhook(secret);
	const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
	const token = Buffer.from(delivery.headers['webhook-signature'].split(',')[1]);
	const { verifyStandardWebhook } = loadAsShipped<typeof Signature>(
		'nodes/ErpTrigger/signature.ts',
	);

	const checks: Record<string, () => boolean> = {
		ours: () =>
			verifyStandardWebhook({
				secret,
				headers: delivery.headers,
				rawBody,
				toleranceSeconds: 300,
				nowSeconds: Math.floor(Date.now() / 1000),
			}).ok,
		library: () => library.verify(rawBody, delivery.headers) !== undefined,
		hmac: () => {
			const expected = Buffer.from(
				createHmac('sha256', key)
					.update(`${delivery.id}.${delivery.timestamp}.`)
					.update(rawBody)
					.digest('base64'),
			);
			return expected.length === token.length && timingSafeEqual(expected, token);
		},
	};
	const rounds = context.quick ? 3 : 7;
	const ms = context.quick ? 300 : 700;
	const runs = await alternate(
		Object.fromEntries(
			Object.entries(checks).map(([name, check]) => [name, async () => throughput(check, ms)]),
		),
		rounds,
		{
			onRun: (name, round, rate) =>
				context.progress(
					`P5 round ${round + 1}/${rounds} ${name}: ${Math.round(rate).toLocaleString('en-US')}/s`,
				),
		},
	);
	return {
		ours: summarize(runs.ours),
		library: summarize(runs.library),
		hmac: summarize(runs.hmac),
	};
}

async function triggerHandling(context: FigureContext): Promise<P5Result['trigger']> {
	const sandbox = await startBenchSandbox({ articles: 10, rateLimit: UNPACED });
	const credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
	let trigger: Awaited<ReturnType<typeof activateTrigger>> | undefined;
	try {
		// Automatic registration with the sandbox: the secret is the one the sandbox created.
		trigger = await activateTrigger({
			parameters: { events: ['*'] },
			credentials,
			workflowId: 'bench-trigger',
		});
		const handle = trigger;
		const secret = String(trigger.staticData.webhookSecret);
		const eventsPerRound = context.quick ? 50 : 200;
		const rounds = context.quick ? 3 : 5;
		const round = async () => {
			const deliveries = Array.from({ length: eventsPerRound }, () =>
				signedDelivery(secret, BODY_BYTES),
			);
			const start = performance.now();
			for (const delivery of deliveries) {
				const answer = await handle.deliver({ headers: delivery.headers, body: delivery.body });
				if (answer.status !== 200 || answer.items?.length !== 1) {
					throw new Error(
						`a valid delivery was answered ${answer.status} (${JSON.stringify(answer.body)})`,
					);
				}
			}
			return (performance.now() - start) / eventsPerRound;
		};
		const runs = await alternate({ trigger: round }, rounds, {
			onRun: (_name, index, ms) =>
				context.progress(`P5 trigger round ${index + 1}/${rounds}: ${ms.toFixed(2)} ms/event`),
		});
		return { eventsPerRound, rounds, msPerEvent: summarize(runs.trigger) };
	} finally {
		await trigger?.deactivate();
		await sandbox.close();
	}
}

export async function runP5(context: FigureContext): Promise<P5Result> {
	return {
		bodyBytes: BODY_BYTES,
		verify: await verificationRate(context),
		trigger: await triggerHandling(context),
	};
}
