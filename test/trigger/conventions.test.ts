/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Custom API Conventions for the ERP Trigger (issue 25): the sandbox delivers real events signed
// or shaped another way, to two triggers registered side by side: one whose credential names the
// variant, and a control on the default settings, which must refuse every delivery. Then crafted
// deliveries for what the sandbox never sends: tampered, stale, replayed, and the limit of a
// signature without timestamp (a replay after a restart is accepted; Standard Webhooks refuses it).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, it } from '@jest/globals';

import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { DEMO_KEYS, signBodyHmac } from '../../sandbox';
import type { SandboxConventions, SandboxHandle } from '../../sandbox';
import { TestCredentials } from '../harness';
import { activate, triggerProcess } from './process';
import type { TriggerHandle, TriggerListener } from '../harness';
import { verifyBodyHmac } from '../../nodes/ErpTrigger/signature';
import { control, nowSeconds, signedDelivery, startDeliveringSandbox, waitFor } from './helpers';

let sandbox: SandboxHandle;
const active: TriggerHandle[] = [];

beforeAll(async () => {
	sandbox = await startDeliveringSandbox();
});
afterEach(async () => {
	while (active.length > 0) await active.pop()?.deactivate();
	const reset = await control(sandbox, 'POST', '/reset', {});
	assert.equal(reset.status, 200);
});
afterAll(async () => {
	await sandbox.close();
});

const credentialsWith = (conventions?: ICredentialDataDecryptedObject) =>
	new TestCredentials({
		erpApi: {
			apiKey: DEMO_KEYS.full,
			environment: 'sandbox',
			baseUrl: sandbox.baseUrl,
			...(conventions ? { customConventions: true, ...conventions } : {}),
		},
	});

/** A trigger on every event, registered with the sandbox and listening on loopback. */
async function listening(
	workflowId: string,
	conventions?: ICredentialDataDecryptedObject,
): Promise<{ trigger: TriggerHandle; listener: TriggerListener }> {
	const trigger = await activate({
		parameters: { events: ['*'] },
		credentials: credentialsWith(conventions),
		listen: true,
		workflowId,
	});
	active.push(trigger);
	return { trigger, listener: await trigger.listen() };
}

const play = async (variant: Partial<SandboxConventions>) => {
	const answer = await control(sandbox, 'POST', '/config', { conventions: variant });
	assert.equal(answer.status, 200);
};

const emit = async (type: string, data: IDataObject): Promise<string> =>
	(await control(sandbox, 'POST', '/events', { type, data })).body.id;

/** The sandbox's delivery attempts to a trigger's registration. */
const attemptsTo = async (trigger: TriggerHandle): Promise<IDataObject[]> =>
	(await control(sandbox, 'GET', `/deliveries?webhook_id=${String(trigger.staticData.webhookId)}`))
		.body.data;

/**
 * One event, emitted once, delivered to the variant's trigger (accepted: exactly one run with
 * that event) and to the control (refused with `controlStatus` on both attempts: no run).
 */
let runs = 0;

async function deliveredToOneOnly(
	variant: Partial<SandboxConventions>,
	conventions: ICredentialDataDecryptedObject,
	controlStatus: number,
	controlConventions?: ICredentialDataDecryptedObject,
): Promise<IDataObject> {
	await play(variant);
	// One workflow id per test: each test here gives the trigger other conventions.
	const run = ++runs;
	const custom = await listening(`conv-custom-${controlStatus}-${run}`, conventions);
	const defaults = await listening(`conv-control-${controlStatus}-${run}`, controlConventions);
	const id = await emit('stock.bas', { article_id: 'art_00000007', stock: 3 });
	const refused = await waitFor('both attempts to the control', async () => {
		const attempts = await attemptsTo(defaults.trigger);
		return attempts.length === 2 ? attempts : undefined;
	});
	assert.deepEqual(
		refused.map((a) => a.status),
		[controlStatus, controlStatus],
	);
	const accepted = await attemptsTo(custom.trigger);
	assert.deepEqual(
		accepted.map((a) => a.status),
		[200],
	);
	assert.equal(custom.listener.runs.length, 1);
	assert.equal(defaults.listener.runs.length, 0);
	const [item] = custom.listener.runs[0];
	assert.equal(item.json.id, id);
	assert.equal(item.json.type, 'stock.bas');
	// The sandbox fills in a known article's fields (reference, alert threshold...) besides these.
	const { article_id, stock } = item.json.data as { article_id: string; stock: number };
	assert.deepEqual({ article_id, stock }, { article_id: 'art_00000007', stock: 3 });
	return item.json;
}

describe('signature: HMAC of the body in a header', () => {
	it('hex with a prefix in X-Hub-Signature-256: accepted once; control on Standard Webhooks: 401', async () => {
		await deliveredToOneOnly(
			{ signature: 'hmac-hex', signatureHeader: 'X-Hub-Signature-256', signaturePrefix: 'sha256=' },
			{
				signatureScheme: 'bodyHmac',
				signatureHeader: 'X-Hub-Signature-256',
				signaturePrefix: 'sha256=',
			},
			401,
		);
	});

	it('base64 SHA-512 with a signed timestamp header: accepted; control without the timestamp header: 401', async () => {
		const base = {
			signatureScheme: 'bodyHmac',
			signatureEncoding: 'base64',
			signatureAlgorithm: 'sha512',
		};
		await deliveredToOneOnly(
			{ signature: 'hmac-base64', signatureAlgorithm: 'sha512', timestampHeader: 'X-Timestamp' },
			{ ...base, timestampHeader: 'X-Timestamp' },
			401,
			base,
		);
	});

	it('a tampered copy, a stale timestamp and another algorithm are refused with 401', async () => {
		const settings = {
			signatureScheme: 'bodyHmac',
			signatureHeader: 'X-Signature',
			timestampHeader: 'X-Timestamp',
		};
		await play({ signature: 'hmac-hex', timestampHeader: 'X-Timestamp' });
		const { trigger } = await listening('conv-crafted', settings);
		const secret = String(trigger.staticData.webhookSecret);
		const variant = {
			signature: 'hmac-hex',
			signatureAlgorithm: 'sha256',
			signaturePrefix: '',
		} as SandboxConventions;
		const deliver = (body: string, timestamp: number, signedBody = body, algorithm = variant) =>
			trigger.deliver({
				headers: {
					'content-type': 'application/json',
					'x-timestamp': String(timestamp),
					'x-signature': signBodyHmac(secret, signedBody, algorithm, timestamp),
				},
				body,
			});
		const body = JSON.stringify({
			id: 'evt_crafted_1',
			type: 'vente.creee',
			data: { id: 'fac_1' },
		});
		const tampered = await deliver(body.replace('fac_1', 'fac_2'), nowSeconds(), body);
		assert.deepEqual(
			[tampered.status, (tampered.body as IDataObject).reason],
			[401, 'no_matching_signature'],
		);
		const stale = await deliver(body, nowSeconds() - 301);
		assert.deepEqual(
			[stale.status, (stale.body as IDataObject).reason],
			[401, 'timestamp_too_old'],
		);
		const sha512 = await deliver(body, nowSeconds(), body, {
			...variant,
			signatureAlgorithm: 'sha512',
		});
		assert.equal(sha512.status, 401);
		const valid = await deliver(body, nowSeconds());
		assert.equal(valid.status, 200);
		assert.equal(valid.items?.length, 1);
		assert.equal(valid.items?.[0].json.id, 'evt_crafted_1');
	});

	it("checks GitHub's published example (secret, body and signature from GitHub's documentation)", () => {
		const input = {
			secret: "It's a Secret to Everybody",
			rawBody: 'Hello, World!',
			toleranceSeconds: 300,
			nowSeconds: nowSeconds(),
		};
		const scheme = {
			kind: 'bodyHmac',
			header: 'x-hub-signature-256',
			algorithm: 'sha256',
			encoding: 'hex',
			prefix: 'sha256=',
		} as const;
		const github = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
		assert.deepEqual(
			verifyBodyHmac({ ...input, headers: { 'X-Hub-Signature-256': github } }, scheme),
			{ ok: true, timestamp: undefined },
		);
		const wrong = github.replace(/7$/, '8');
		assert.deepEqual(
			verifyBodyHmac({ ...input, headers: { 'x-hub-signature-256': wrong } }, scheme),
			{
				ok: false,
				reason: 'no_matching_signature',
			},
		);
		assert.deepEqual(
			verifyBodyHmac({ ...input, headers: { 'x-hub-signature-256': github.slice(7) } }, scheme),
			{
				ok: false,
				reason: 'malformed_signature',
			},
		);
	});
});

describe('the event elsewhere in the body', () => {
	it('type in event, data in payload, id in meta.id: accepted; control on type/id/data: 400', async () => {
		await deliveredToOneOnly(
			{ eventTypePath: 'event', eventDataPath: 'payload', eventIdPath: 'meta.id' },
			{ eventTypePath: 'event', eventDataPath: 'payload', eventIdPath: 'meta.id' },
			400,
		);
	});

	it('type in a header: accepted; control reading the body: 400', async () => {
		await deliveredToOneOnly(
			{ eventTypeHeader: 'X-Event-Type', eventTypePath: 'kind' },
			{ eventTypeHeader: 'X-Event-Type' },
			400,
		);
	});
});

describe('replays without a signed timestamp', () => {
	const hmac = (secret: string, body: string) =>
		createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');

	it('refuses a replayed id from the process memory, but after a restart accepts it again; Standard Webhooks refuses it (409)', async () => {
		await play({ signature: 'hmac-hex' });
		const { trigger } = await listening('conv-replay', { signatureScheme: 'bodyHmac' });
		const secret = String(trigger.staticData.webhookSecret);
		const body = JSON.stringify({ id: 'evt_replayed', type: 'facture.payee', data: {} });
		const delivery = {
			headers: { 'content-type': 'application/json', 'x-signature': hmac(secret, body) },
			body,
		};
		assert.equal((await trigger.deliver(delivery)).items?.length, 1);
		const replay = await trigger.deliver(delivery);
		assert.deepEqual([replay.status, replay.body], [200, { received: true, ignored: 'duplicate' }]);
		// Without its id the delivery cannot be checked against replays: refused.
		const noId = JSON.stringify({ type: 'facture.payee', data: {} });
		const anonymous = await trigger.deliver({
			headers: { 'content-type': 'application/json', 'x-signature': hmac(secret, noId) },
			body: noId,
		});
		assert.equal(anonymous.status, 400);

		// A restart (a new memory, begun now): nothing dates the delivery, so it runs again.
		triggerProcess.restart({ since: nowSeconds() });
		assert.equal((await trigger.deliver(delivery)).items?.length, 1);

		// Control: a Standard Webhooks delivery signed before the restart is refused.
		const standard = await listening('conv-replay-control');
		const old = signedDelivery(String(standard.trigger.staticData.webhookSecret), {
			timestamp: nowSeconds() - 5,
		});
		triggerProcess.restart({ since: nowSeconds() });
		assert.equal((await standard.trigger.deliver(old)).status, 409);
		triggerProcess.restart({ since: 0 });
	});
});
