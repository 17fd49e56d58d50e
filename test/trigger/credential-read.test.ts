/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The ERP Trigger's credential read per delivery (nodes/ErpTrigger/credentialRead.ts): deliveries
// that arrive while a read is under way share the next one, which begins after them, so a burst
// reads the credential a few times instead of once per delivery, and an edited Webhook Secret
// still applies to the very next delivery. Manual registration (the secret in the credential),
// through the harness's webhook path (n8n-core's WebhookContext), no ERP needed.
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from '@jest/globals';

import type {
	ICredentialDataDecryptedObject,
	IExecuteData,
	INodeCredentialsDetails,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { DEMO_KEYS } from '../../sandbox';
import { TestCredentials } from '../harness';
import { activate } from './process';
import type { DeliveryResult, TriggerHandle } from '../harness';
import { newSecret, signedDelivery, waitFor } from './helpers';
import type { SignedDelivery } from './helpers';

const CREDENTIAL = {
	apiKey: DEMO_KEYS.full,
	environment: 'sandbox',
	baseUrl: 'http://127.0.0.1:9/v1',
};

/**
 * Test credentials whose reads take as long as the test says: each read takes the stored data
 * when it begins (as n8n's database query does), then waits for `gate` when one is set.
 */
class SlowCredentials extends TestCredentials {
	reads = 0;

	gate?: Promise<void>;

	/** Reads begun while set fail (as a credential deleted meanwhile does in n8n). */
	failing = false;

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
	): Promise<ICredentialDataDecryptedObject> {
		this.reads += 1;
		const fails = this.failing;
		const data = await super.getDecrypted(
			additionalData,
			nodeCredentials,
			type,
			mode,
			executeData,
			raw,
		);
		if (this.gate) await this.gate;
		if (fails) throw new Error('Credential with ID "erpApi" does not exist for type "erpApi".');
		return data;
	}

	/** Holds every read begun from now until `open()` is called. */
	hold(): { open: () => void } {
		let open = () => {};
		this.gate = new Promise<void>((resolve) => {
			open = () => {
				this.gate = undefined;
				resolve();
			};
		});
		return { open };
	}
}

async function manualTrigger(
	secret: string,
	workflowId: string,
): Promise<{ trigger: TriggerHandle; credentials: SlowCredentials }> {
	const credentials = new SlowCredentials({ erpApi: { ...CREDENTIAL, webhookSecret: secret } });
	const trigger = await activate({
		parameters: { events: ['*'], registration: 'manual' },
		credentials,
		workflowId,
	});
	credentials.reads = 0; // the activation's own read
	return { trigger, credentials };
}

/**
 * `first` is delivered and its credential read held; `meanwhile` runs while that read is under
 * way; then `later` arrive and wait for the next read; every answer once the read is let go.
 */
async function duringARead(
	trigger: TriggerHandle,
	credentials: SlowCredentials,
	first: SignedDelivery,
	meanwhile: () => void,
	later: SignedDelivery[],
): Promise<{ first: DeliveryResult; later: DeliveryResult[] }> {
	const held = credentials.hold();
	const firstAnswer = trigger.deliver(first);
	await waitFor('the first read under way', () => (credentials.reads === 1 ? true : undefined));
	meanwhile();
	const laterAnswers = later.map(async (delivery) => await trigger.deliver(delivery));
	// A delivery reaches its credential read in this process with no I/O on the way (the harness
	// hands the request over in memory): a few turns of the event loop bring every one there.
	for (let turn = 0; turn < 20; turn++) await nextTurn();
	assert.equal(credentials.reads, 1, 'the later deliveries wait: no read of their own');
	held.open();
	return { first: await firstAnswer, later: await Promise.all(laterAnswers) };
}

/** A trigger with one secret; two deliveries arrive during the first one's read, after `meanwhile`. */
async function twoArriveDuringARead(
	workflowId: string,
	meanwhile: (credentials: SlowCredentials, secret: string) => void,
) {
	const secret = newSecret();
	const { trigger, credentials } = await manualTrigger(secret, workflowId);
	const answers = await duringARead(
		trigger,
		credentials,
		lowStock(secret),
		() => meanwhile(credentials, secret),
		[lowStock(secret), lowStock(secret)],
	);
	return { trigger, credentials, secret, answers };
}

/** The first delivery ran; every later one failed with `message` and started no run. */
function laterFailed(answers: { first: DeliveryResult; later: DeliveryResult[] }, message: RegExp) {
	assert.equal(answers.first.status, 200);
	for (const answer of answers.later) {
		assert.equal(answer.items, undefined);
		assert.match(String(answer.error?.message), message);
	}
}

const lowStock = (secret: string, id?: string) => signedDelivery(secret, { id, type: 'stock.bas' });

describe('the credential read of a delivery', () => {
	it('a burst of 20 concurrent deliveries reads the credential twice, and each delivery runs once', async () => {
		const secret = newSecret();
		const { trigger, credentials } = await manualTrigger(secret, 'cr-burst');
		const deliveries = Array.from({ length: 20 }, (_, i) => lowStock(secret, `evt_cr_burst_${i}`));
		// The first delivery's read is under way; the other 19 wait for the next one.
		const answers = await duringARead(
			trigger,
			credentials,
			deliveries[0],
			() => {},
			deliveries.slice(1),
		);
		const all = [answers.first, ...answers.later];
		assert.deepEqual(
			all.map((answer) => answer.status),
			all.map(() => 200),
		);
		assert.deepEqual(
			all.map((answer) => answer.items?.map((item) => item.json.id)),
			deliveries.map((_, i) => [`evt_cr_burst_${i}`]),
		);
		assert.equal(credentials.reads, 2);
		// Control: one at a time, each delivery reads the credential itself.
		for (let i = 0; i < 3; i++) assert.equal((await trigger.deliver(lowStock(secret))).status, 200);
		assert.equal(credentials.reads, 5);
		await trigger.deactivate();
	});

	it('a secret edited while a read is under way applies to every delivery that arrives after the edit', async () => {
		const before = newSecret();
		const after = newSecret();
		const { trigger, credentials } = await manualTrigger(before, 'cr-edit');
		// The first arrives before the edit: its read begins with the old secret, as if alone. The
		// others arrive after the edit, while that read is still under way: they must not share it.
		const answers = await duringARead(
			trigger,
			credentials,
			lowStock(before),
			() => credentials.set('erpApi', { ...CREDENTIAL, webhookSecret: after }),
			[lowStock(before), lowStock(after)],
		);
		// Sharing the read under way would give 200 then 401 (the variant that must fail).
		assert.deepEqual(
			[answers.first, ...answers.later].map((answer) => answer.status),
			[200, 401, 200],
		);
		assert.equal(credentials.reads, 2);
		await trigger.deactivate();
	});

	it('a read that fails fails the deliveries that waited for it, and the next delivery reads again', async () => {
		const { trigger, credentials, secret, answers } = await twoArriveDuringARead(
			'cr-failed',
			(held) => (held.failing = true),
		);
		laterFailed(answers, /does not exist/);
		assert.equal(credentials.reads, 2);
		credentials.failing = false;
		assert.equal((await trigger.deliver(lowStock(secret))).status, 200);
		assert.equal(credentials.reads, 3);
		await trigger.deactivate();
	});

	it("the guards check every delivery's credential, also when the read is shared", async () => {
		// A production key in a sandbox credential: the guards refuse it, naming nothing secret.
		const { trigger, answers } = await twoArriveDuringARead('cr-guards', (credentials, secret) =>
			credentials.set('erpApi', {
				...CREDENTIAL,
				apiKey: 'sk_live_refused',
				webhookSecret: secret,
			}),
		);
		laterFailed(answers, /production key/);
		await trigger.deactivate();
	});
});
