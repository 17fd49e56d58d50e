/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger's replay checks in real n8n, shared by the regular-mode e2e file
 * (test/e2e/security.test.ts) and queue mode (test/queue-mode/trigger-replay.ts): deliveries
 * are posted to the production URL of whichever n8n process receives webhooks, and runs are
 * counted through n8n's REST API with the one counting helper (./count.ts).
 */
import assert from 'node:assert/strict';

import type { Workflow } from '../../scripts/examples';
import type { N8nRest } from '../../scripts/n8n-instance';
import { signedDelivery, type SignedDelivery } from '../trigger/helpers';
import { expectRuns } from './count';
import { chainWorkflow } from './helpers';

/**
 * ERP Trigger (all events) -> No Operation. `options` are the trigger's Options (where webhook
 * processors receive the deliveries, Catch Up Missed Events is off, as docs/production.md says);
 * the trigger at `typeVersion` (1 unless said).
 */
export function triggerWorkflow(
	id: string,
	webhookId: string,
	registration: 'automatic' | 'manual',
	credential: { id: string; name: string },
	options: Record<string, unknown> = {},
	typeVersion = 1,
): Workflow {
	return chainWorkflow(id, `E2E: trigger (${registration})`, [
		{
			name: 'ERP Trigger',
			type: 'n8n-nodes-erp.erpTrigger',
			typeVersion,
			webhookId,
			credentials: { erpApi: credential },
			parameters: { registration, events: ['*'], options },
		},
		{ name: 'No Operation', type: 'n8n-nodes-base.noOp', parameters: {} },
	]);
}

/** A facture.payee event signed as the ERP signs it. */
export function sign(secret: string, id: string, timestamp?: number): SignedDelivery {
	return signedDelivery(secret, {
		id,
		type: 'facture.payee',
		timestamp,
		data: { facture_id: 'fac_e2e', montant: 1200 },
	});
}

export type Answer = { status: number; body: string };

/** An accepted delivery: 200 with no body (the trigger's `responseData: 'noData'`). */
export const started = (answer: Answer) => answer.status === 200 && answer.body === '';
export const DUPLICATE = '{"received":true,"ignored":"duplicate"}';

/** A trigger reached through one n8n process's production webhooks. */
export type TriggerTarget = {
	/** Base URL of the process that receives webhooks. */
	webhookUrl: string;
	/** The trigger node's webhookId. */
	hookId: string;
	workflowId: string;
	rest: N8nRest;
};

export async function deliver(target: TriggerTarget, delivery: SignedDelivery): Promise<Answer> {
	const response = await fetch(`${target.webhookUrl}/webhook/${target.hookId}/erp`, {
		method: 'POST',
		headers: delivery.headers,
		body: delivery.body,
		signal: AbortSignal.timeout(60_000),
	});
	return { status: response.status, body: await response.text() };
}

/**
 * One delivery then the same bytes again: 1 run (control: a distinct one makes 2); ten identical
 * copies at once: 1 run; twenty distinct at once: twenty runs. The trigger must have no runs yet.
 * `mode` is the runs' execution mode: `trigger` where the process that receives the delivery runs
 * the workflow's triggers with Catch Up Missed Events on (the delivery is handed to the trigger's
 * emit, nodes/ErpTrigger/delivery.ts), `webhook` otherwise (a webhook processor).
 * Every count is an `expectRuns`: reached by its deadline, then unchanged for the quiet period,
 * so that a run n8n records after the answer (too late, or one too many) is seen.
 */
export async function replayChecks(
	target: TriggerTarget,
	secret: string,
	mode: 'trigger' | 'webhook',
): Promise<void> {
	const tag = target.hookId.slice(-4);
	const runs = async (expected: number) =>
		await expectRuns(target.rest, target.workflowId, expected);
	await runs(0);

	const first = sign(secret, `evt_seq_${tag}`);
	assert.ok(started(await deliver(target, first)));
	assert.deepEqual(await deliver(target, first), { status: 200, body: DUPLICATE });
	await runs(1); // a replayed delivery started no second run
	assert.ok(started(await deliver(target, sign(secret, `evt_seq_b_${tag}`))));
	await runs(2); // control: a distinct delivery is counted

	const copy = sign(secret, `evt_burst_${tag}`);
	const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(target, copy)));
	assert.equal(answers.filter(started).length, 1, JSON.stringify(answers));
	assert.equal(answers.filter((a) => a.body === DUPLICATE).length, 9, JSON.stringify(answers));
	await runs(3);

	const distinct = await Promise.all(
		Array.from({ length: 20 }, (_, i) => deliver(target, sign(secret, `evt_many_${tag}_${i}`))),
	);
	assert.equal(distinct.filter(started).length, 20, JSON.stringify(distinct));
	const all = await runs(23);
	assert.ok(
		all.every((r) => r.status === 'success' && r.mode === mode),
		JSON.stringify(all),
	);
}

/**
 * From version 1.1 n8n leaves a body it does not parse unread and the trigger reads it: a delivery
 * sent as application/octet-stream starts one run; control: the same bytes under another
 * secret's signature are refused (401) and start none. The trigger must have no runs yet.
 */
export async function rawBodyChecks(target: TriggerTarget, secret: string): Promise<void> {
	const asBytes = (delivery: SignedDelivery): SignedDelivery => ({
		...delivery,
		headers: { ...delivery.headers, 'content-type': 'application/octet-stream' },
	});
	const tag = target.hookId.slice(-4);
	assert.ok(started(await deliver(target, asBytes(sign(secret, `evt_bytes_${tag}`)))));
	const forged = await deliver(target, asBytes(sign(OTHER_SECRET, `evt_bytes_forged_${tag}`)));
	assert.equal(forged.status, 401, forged.body);
	await expectRuns(target.rest, target.workflowId, 1);
}

const OTHER_SECRET = `whsec_${Buffer.from('e2e-not-the-trigger-secret-32byte').toString('base64')}`;

/** The registration secret the ERP (the sandbox) holds for the trigger's production URL. */
export async function registrationSecret(sandboxUrl: string, target: TriggerTarget) {
	const hookUrl = `${target.webhookUrl}/webhook/${target.hookId}/erp`;
	const response = await fetch(
		`${sandboxUrl}/_sandbox/webhook-secret?url=${encodeURIComponent(hookUrl)}`,
	);
	assert.equal(response.status, 200, 'the trigger registered its URL with the ERP');
	return ((await response.json()) as { secret: string }).secret;
}
