/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP Trigger heals itself, the scenario run in real n8n by test/e2e/trigger-restart.test.ts
 * (2.41.x) and test/compat/trigger-health.compat.ts (1.123.81, 2.33.7): one published workflow, no
 * polling backstop, a check every minute (the shortest interval).
 * - the registration deleted in the ERP while n8n was stopped: registered again at start (n8n
 *   runs the webhook's `checkExists`; 2.41 only because the node has a `trigger()`); the next
 *   `stock.bas` runs once and reports the restore;
 * - the registration deleted while n8n runs: restored within the check interval, logged in n8n's
 *   log, and the next event runs once and reports it;
 * - a restart repeats nothing: no run; the registration is kept once n8n has saved it (a
 *   registration restored by a scheduled check is saved only with the next start, which
 *   replaces it once more).
 * Counted at the sink the workflow posts to (test/e2e/count.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { afterAll, beforeAll, it } from '@jest/globals';

import { sandboxRequests } from '../../sandbox';
import { SANDBOX_CREDENTIAL, startChatSink, type ChatSink } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import { keepFilesOnFailure } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { sinkReading } from './sinks';
import { chainWorkflow, erp, MINUTE, startE2e, type E2e } from './helpers';

const HEALING_WORKFLOW = 'ErpSelfHealing01';
const HOOK_ID = '7d2e4f6a-1b3c-4d5e-8f70-a1b2c3d4e5f6';
/** A check every minute: a lost registration is restored within about two minutes. */
const RESTORE_DEADLINE = { deadlineMs: 150_000, quietMs: 1_000, pollMs: 2_000 };

/** The published self-healing workflow: stock.bas into a sink, with the restore note if any. */
function selfHealingWorkflow(sinkUrl: string) {
	return chainWorkflow(HEALING_WORKFLOW, 'E2E: low stock by webhook, self-healing', [
		{
			name: 'ERP Trigger',
			type: 'n8n-nodes-erp.erpTrigger',
			webhookId: HOOK_ID,
			credentials: { erpApi: SANDBOX_CREDENTIAL },
			parameters: {
				registration: 'automatic',
				events: ['stock.bas'],
				options: { checkMinutes: 1 },
			},
		},
		{
			name: 'Post reference',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: sinkUrl,
				sendBody: true,
				specifyBody: 'keypair',
				bodyParameters: {
					parameters: [
						{
							name: 'text',
							value:
								"={{ $json.data.reference }}{{ $json.registration ? ' restored:' + $json.registration.reason : '' }}",
						},
					],
				},
				options: {},
			},
		},
	]);
}

/**
 * For a describe block: one n8n (`version`, default the default n8n) with the self-healing
 * workflow published, started in beforeAll and stopped in afterAll, and the scenario's tests.
 */
export function useSelfHealingScenario(options: {
	folderPrefix: string;
	log: Log;
	version?: string;
}): void {
	const { log } = options;
	const files = keepFilesOnFailure(log);
	let e2e: E2e;
	let sink: ChatSink & { arrivals: number[] };

	beforeAll(async () => {
		const arrivals: number[] = [];
		sink = Object.assign(await startChatSink(0, () => arrivals.push(Date.now())), { arrivals });
		e2e = await startE2e({
			version: options.version,
			folderPrefix: options.folderPrefix,
			log,
			files,
			workflows: () => [selfHealingWorkflow(sink.url)],
		});
		await e2e.rest.activate(HEALING_WORKFLOW);
	}, 60 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await sink?.close();
	}, 10 * MINUTE);

	selfHealingScenario(
		() => e2e,
		() => sink,
		files,
		log,
	);
}

function selfHealingScenario(
	running: () => E2e,
	/** The sink, and when each of its messages arrived (Date.now()). */
	sinkOf: () => ChatSink & { arrivals: number[] },
	files: ReturnType<typeof keepFilesOnFailure>,
	log: Log,
): void {
	/** A real crossing: an article at 20 with seuil_alerte 10 brought to 5. Its reference. */
	const crossing = async (tag: string): Promise<string> => {
		const e2e = running();
		const article = await erp(e2e.sandbox, '/articles', {
			method: 'POST',
			body: {
				reference: `HEAL-${tag}-${Date.now()}`,
				designation: `Bol ${tag}`,
				prix_ht: 900,
				tva: 2000,
				stock: 20,
				seuil_alerte: 10,
			},
		});
		await erp(e2e.sandbox, `/articles/${article.id}`, { method: 'PATCH', body: { stock: 5 } });
		return article.reference as string;
	};
	const registrations = async (): Promise<Array<{ id: string; status: string; url: string }>> =>
		(await erp(running().sandbox, '/webhooks')).data.filter((w: { url: string }) =>
			w.url.includes(HOOK_ID),
		);
	/** What the ERP was asked about registrations: for the log, when a count goes wrong. */
	const logRegistrations = async (when: string) => {
		const requests = (await sandboxRequests(running().sandbox.url)).filter((r) =>
			r.path.startsWith('/v1/webhooks'),
		);
		log(
			`${when}: registrations ${JSON.stringify(await registrations())}; requests ${requests.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}`,
		);
	};
	const oneRegistration = async (what: string, options = {}) => {
		try {
			await expectCount(what, 1, async () => ({ count: (await registrations()).length }), {
				pollMs: 2_000,
				...options,
			});
		} finally {
			await logRegistrations(what);
		}
		return (await registrations())[0];
	};
	const n8nLog = () => fs.readFileSync(running().config.paths.n8nLog, 'utf8');

	it(
		'the control: with the registration in place, a crossing runs once',
		files.track(async () => {
			const madeAt = Date.now();
			const ref = await crossing('ok');
			await expectCount('runs', 1, sinkReading(sinkOf()));
			assert.deepEqual(sinkOf().messages, [ref]);
			log(`latency from the crossing to the message: ${sinkOf().arrivals[0] - madeAt} ms`);
		}),
		5 * MINUTE,
	);

	it(
		'deleted while n8n was stopped: registered again at start; the next crossing runs once',
		files.track(async () => {
			const e2e = running();
			const before = await oneRegistration('registrations before');
			log('stopping n8n and deleting the registration in the ERP');
			await e2e.n8n!.stop();
			await erp(e2e.sandbox, `/webhooks/${before.id}`, { method: 'DELETE' });
			await e2e.start();
			const after = await oneRegistration('registrations after the start');
			assert.notEqual(after.id, before.id, 'a new registration, made at start');
			assert.match(
				n8nLog(),
				/webhook registration of workflow .* was restored \(the ERP no longer had it\)/,
			);

			const ref = await crossing('back');
			await expectCount('runs', 2, sinkReading(sinkOf()));
			assert.equal(sinkOf().messages[1], `${ref} restored:gone`);
		}),
		10 * MINUTE,
	);

	it(
		'deleted while n8n runs: restored within the check interval; the next crossing runs once',
		files.track(async () => {
			const e2e = running();
			const before = await oneRegistration('registrations before');
			await erp(e2e.sandbox, `/webhooks/${before.id}`, { method: 'DELETE' });
			const deletedAt = Date.now();
			await expectCount(
				'registrations restored by the scheduled check',
				1,
				async () => ({ count: (await registrations()).filter((r) => r.id !== before.id).length }),
				RESTORE_DEADLINE,
			);
			log(`restored ${Date.now() - deletedAt} ms after the deletion (check every minute)`);
			const ref = await crossing('running');
			await expectCount('runs', 3, sinkReading(sinkOf()));
			assert.equal(sinkOf().messages[2], `${ref} restored:gone`);
		}),
		10 * MINUTE,
	);

	it(
		'a restart repeats nothing: no run; the registration is kept (once n8n has saved it)',
		files.track(async () => {
			const e2e = running();
			// The registration the scheduled check restored is saved by n8n with the next start:
			// this first restart replaces it once more (logged and reported), the next keeps it.
			await e2e.n8n!.stop();
			await e2e.start();
			const first = await oneRegistration('registrations after the first restart');
			await expectCount('runs after the first restart', 3, sinkReading(sinkOf()), {
				quietMs: 5_000,
			});
			await e2e.n8n!.stop();
			await e2e.start();
			const second = await oneRegistration('registrations after the second restart');
			assert.equal(second.id, first.id, 'the second restart keeps the registration');
			await expectCount('runs after the second restart', 3, sinkReading(sinkOf()), {
				quietMs: 5_000,
			});
			const ref = await crossing('last');
			await expectCount('runs', 4, sinkReading(sinkOf()));
			assert.equal(sinkOf().messages[3], ref);
		}),
		10 * MINUTE,
	);
}
