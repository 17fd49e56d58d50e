/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (polling-queue.ts, on its cluster, with and without durable poll
 * cursors): `kill -9` of main during a polling catch-up. Main stopped, an article and 20 stock
 * movements made, main started; as soon as the catch-up posts its first movement, main is killed
 * and started again. Nothing is lost (every movement posted); how many are posted twice is measured and
 * printed (`# main kill -9 ...`).
 */
import assert from 'node:assert/strict';

import type { ChatSink } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import type { QueueDeployment } from '../../scripts/queue-mode';
import { stableCount } from '../e2e/count';
import { erp } from '../e2e/helpers';
import { journal } from '../e2e/polling-scenario';
import type { PollingTarget, Timing } from '../e2e/polling-target';
import { sinkReading } from '../e2e/sinks';
import { waitFor } from '../trigger/helpers';

const MOVEMENTS = 20;

export async function mainKilledDuringCatchUp(
	q: QueueDeployment,
	target: PollingTarget,
	moves: ChatSink,
	timing: Timing,
	log: Log,
): Promise<void> {
	const { sandbox } = target;
	const start = moves.messages.length;
	const known = await journal(sandbox);
	log('stopping main; an article and 20 movements');
	await q.stopMain();
	const article = await erp(sandbox, '/articles', {
		method: 'POST',
		body: {
			reference: `POLL-KILL-${Date.now()}`,
			designation: 'Killed-main mug',
			prix_ht: 900,
			tva: 2000,
			stock: 100,
			seuil_alerte: 0,
		},
	});
	for (let i = 1; i <= MOVEMENTS; i++)
		await erp(sandbox, `/articles/${article.id}`, { method: 'PATCH', body: { stock: 100 - i } });
	const made = (await journal(sandbox)).slice(known.length);
	assert.ok(made.length >= MOVEMENTS, `${made.length} movements made`);
	log('starting main; kill -9 as soon as the catch-up posts a movement');
	await q.startMain();
	await waitFor(
		'the catch-up posting',
		() => moves.messages.length > start,
		timing.catchUpMs + 60_000,
	);
	await q.killMain();
	const atKill = moves.messages.length - start;
	log(`main killed with ${atKill} of ${made.length} posted; starting it again`);
	await q.startMain();
	await stableCount('posted movements after the kill', sinkReading(moves), {
		quietMs: timing.restartQuietMs,
		deadlineMs: timing.catchUpMs + timing.restartQuietMs,
	});
	const posted = moves.messages.slice(start);
	const missing = made.filter((id) => !posted.includes(id));
	const twice = posted.length - new Set(posted).size;
	process.stdout.write(
		`# main kill -9 during the catch-up (${timing.durable ? 'durable poll cursors' : 'default poll cursors'}): ` +
			`${atKill} of ${made.length} posted at the kill, ${posted.length} posted in all, ` +
			`${missing.length} lost, ${twice} posted twice\n`,
	);
	assert.deepEqual(missing, [], 'no movement lost');
	assert.ok(
		posted.every((id) => made.includes(id)),
		'only the movements made while main was stopped were posted',
	);
}
