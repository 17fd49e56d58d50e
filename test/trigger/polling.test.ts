/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The ERP Polling Trigger through n8n-core's PollContext (test/harness/poll.ts), against the
// sandbox: new records once each and in order, the first activation from now, catch-up over
// several polls with a page cap, restarts, "Fetch Test Event", and its options checked.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from '@jest/globals';

import { DEMO_KEYS, startSandbox, UNPACED } from '../../sandbox';
import { activatePoller, TestCredentials } from '../harness';

import type { IDataObject } from 'n8n-workflow';

import {
	idsAfter,
	newArticle,
	newClient,
	newInvoice,
	poller,
	requestsDuring,
	setStock,
	useSandbox,
} from './polling-helpers';

const env = useSandbox();

const ids = (items: IDataObject[]) => items.map((item) => String(item.id));

/** Makes `n` records the watch should see, and returns their ids in creation order. */
const makers: Record<string, (n: number) => Promise<string[]>> = {
	stockMovement: async (n) => {
		const article = await newArticle(env.sandbox, { stock: 1000 });
		for (let i = 1; i <= n; i++) await setStock(env.sandbox, article.id, 1000 - i);
		return (await idsAfter(env.sandbox, '/stock/mouvements')).slice(-n);
	},
	article: async (n) => {
		const made: string[] = [];
		for (let i = 0; i < n; i++) made.push(String((await newArticle(env.sandbox)).id));
		return made;
	},
	client: async (n) => {
		const made: string[] = [];
		for (let i = 0; i < n; i++) made.push(String((await newClient(env.sandbox)).id));
		return made;
	},
	invoice: async (n) => {
		const client = await newClient(env.sandbox);
		const article = await newArticle(env.sandbox, { stock: 1000 });
		const made: string[] = [];
		for (let i = 0; i < n; i++)
			made.push(String((await newInvoice(env.sandbox, client.id, article.id)).id));
		return made;
	},
};
const TYPES: Record<string, string> = {
	stockMovement: 'mouvement.cree',
	article: 'article.cree',
	client: 'client.cree',
	invoice: 'vente.creee',
};

describe.each(Object.keys(makers))('watch %s', (watch) => {
	it('starts from now, then emits each new record once, in order, with the ERP Trigger item shape', async () => {
		await makers[watch](2); // history: never emitted
		const trigger = await poller(env.credentials, { watch });
		assert.deepEqual(trigger.items, [], 'the first activation emits no history');
		assert.equal(
			typeof trigger.savedState.position,
			'string',
			'the position is saved at activation',
		);

		const made = await makers[watch](3);
		const first = await trigger.poll();
		assert.deepEqual(ids(first), made);
		for (const item of first) {
			assert.deepEqual(Object.keys(item).sort(), ['created_at', 'data', 'id', 'type']);
			assert.equal(item.type, TYPES[watch]);
			assert.equal((item.data as IDataObject).id, item.id);
			assert.ok(Date.parse(String(item.created_at)) > 0);
		}
		assert.deepEqual(await trigger.poll(), [], 'nothing new, nothing emitted');
		assert.deepEqual(await trigger.restart(), [], 'a restart repeats nothing');
		const more = await makers[watch](2);
		assert.deepEqual(ids(await trigger.poll()), more);
		assert.deepEqual(ids(trigger.items), [...made, ...more], 'each record exactly once');
	});
});

describe('catch-up', () => {
	it('a backlog larger than Max Pages per Poll comes over several polls: all of it, in order, once', async () => {
		const trigger = await poller(env.credentials, {
			watch: 'stockMovement',
			options: { maxPages: 1 },
		});
		const made = await makers.stockMovement(250);
		const cost = await requestsDuring(env.sandbox, async () => {
			assert.equal((await trigger.poll()).length, 100);
		});
		assert.deepEqual(cost, { 'GET /v1/stock/mouvements': 1 }, 'one page per poll, as capped');
		assert.equal((await trigger.poll()).length, 100);
		assert.equal((await trigger.poll()).length, 50);
		assert.deepEqual(await trigger.poll(), []);
		assert.deepEqual(ids(trigger.items), made);
	});

	it('a poll that starts while the previous one still runs reads nothing: two polls never emit the same record', async () => {
		const trigger = await poller(env.credentials, {
			watch: 'stockMovement',
			options: { maxPages: 2 },
		});
		const made = await makers.stockMovement(150);
		const [first, second] = await Promise.all([trigger.poll(), trigger.poll()]);
		assert.deepEqual([first.length, second.length], [150, 0]);
		assert.deepEqual(ids(trigger.items), made);
	});

	it('what happened while n8n was stopped comes at the start poll; a quiet poll lost at restart repeats nothing', async () => {
		const trigger = await poller(env.credentials, { watch: 'client' });
		const before = await makers.client(2);
		assert.deepEqual(ids(await trigger.poll()), before);
		const saved = trigger.savedState.position;
		// Quiet polls: n8n does not save them; the position in memory and in the store agree anyway.
		assert.deepEqual(await trigger.poll(), []);
		assert.equal(trigger.savedState.position, saved);
		const whileDown = await makers.client(3); // n8n is "stopped": no polls
		assert.deepEqual(ids(await trigger.restart()), whileDown);
		assert.deepEqual(ids(trigger.items), [...before, ...whileDown]);
	});

	it("a poll handed the position from before the last emit (n8n 2.41's durable cursors save it a moment late) emits nothing again", async () => {
		const trigger = await poller(env.credentials, { watch: 'client' });
		const start = trigger.liveState;
		const first = await makers.client(2);
		assert.deepEqual(ids(await trigger.poll()), first);
		assert.deepEqual(
			await trigger.pollHanded(start),
			[],
			'the state before the emit: nothing again',
		);
		assert.deepEqual(trigger.liveState, trigger.savedState);
		const next = await makers.client(1);
		assert.deepEqual(ids(await trigger.poll()), next);
		// Control: handed a state older than the one the last emit began from (what a new process
		// would read after a crash), the poll reads the records again: handing over is what is
		// played, and the guard above is what kept the 2 from running twice.
		assert.deepEqual(ids(await trigger.pollHanded(start)), [...first, ...next]);
	});

	it('control: the harness does not save a quiet poll (so the tests above can fail)', async () => {
		const trigger = await poller(env.credentials, { watch: 'lowStock' });
		const article = await newArticle(env.sandbox, { stock: 50, seuil_alerte: 5 });
		await setStock(env.sandbox, article.id, 40); // a movement, no crossing: a quiet poll
		assert.deepEqual(await trigger.poll(), []);
		assert.notEqual(trigger.liveState.position, trigger.savedState.position);
	});
});

describe('start and test event', () => {
	it('Start From "The Beginning" emits what the ERP still lists, oldest first; "A Date" only what was created since', async () => {
		const all = await idsAfter(env.sandbox, '/clients');
		const fromStart = await poller(env.credentials, {
			watch: 'client',
			options: { startFrom: 'beginning', maxPages: 100 },
		});
		assert.deepEqual(ids(fromStart.items), all);

		const since = new Date(Date.now() + 1500);
		await sleep(1600);
		const fromDate = await poller(env.credentials, {
			watch: 'client',
			options: { startFrom: 'date', startDate: since.toISOString() },
		});
		const made = await makers.client(2);
		assert.deepEqual(fromDate.items, [], 'nothing created since the date yet');
		assert.deepEqual(ids(await fromDate.poll()), made);
	});

	it('"Fetch Test Event" returns the most recent record and changes no saved position', async () => {
		const trigger = await poller(env.credentials, { watch: 'article' });
		const saved = trigger.savedState;
		const [last] = (await makers.article(2)).slice(-1);
		const test = await trigger.fetchTestEvent();
		assert.deepEqual(ids(test), [last]);
		assert.deepEqual(trigger.savedState, saved);
		assert.deepEqual(ids(await trigger.poll()).slice(-1), [last], 'the real poll still sees it');
	});
});

describe('a saved position the ERP no longer accepts', () => {
	it('stops the poll with an error that says so, instead of skipping or starting over', async () => {
		const trigger = await poller(env.credentials, { watch: 'client' });
		await assert.rejects(
			activatePoller({
				parameters: { watch: 'client' },
				credentials: env.credentials,
				staticData: { ...trigger.savedState, position: 'cli_99999999' },
			}),
			/The ERP no longer accepts this trigger's saved position \(cli_99999999 in \/clients\)/,
		);
	});

	it("is recognised by the credential's cursor name (a server that names it starting_after)", async () => {
		const names = { cursorParam: 'starting_after', pageSizeParam: 'per_page' };
		const sandbox = await startSandbox({ port: 0, rateLimit: UNPACED, conventions: names });
		try {
			const credentials = new TestCredentials({
				erpApi: {
					apiKey: DEMO_KEYS.full,
					environment: 'sandbox',
					baseUrl: sandbox.baseUrl,
					customConventions: true,
					...names,
				},
			});
			const trigger = await poller(credentials, { watch: 'client' });
			const refused = activatePoller({
				parameters: { watch: 'client' },
				credentials,
				staticData: { ...trigger.savedState, position: 'cli_99999999' },
			});
			await assert.rejects(refused, (error: Error) => {
				assert.match(
					error.message,
					/The ERP no longer accepts this trigger's saved position \(cli_99999999 in \/clients\)/,
				);
				return true;
			});
			// Control: the server's refusal names starting_after, never cursor.
			const answer = await fetch(`${sandbox.baseUrl}/clients?starting_after=cli_99999999`, {
				headers: { authorization: `Bearer ${DEMO_KEYS.full}` },
			});
			const body = await answer.text();
			assert.equal(answer.status, 400);
			assert.match(body, /starting_after/);
			assert.doesNotMatch(body, /cursor/);
		} finally {
			await sandbox.close();
		}
	});
});

describe('options are checked before any request', () => {
	it.each([
		[
			{ options: { maxPages: 0 } },
			'Invalid value for "Options › Max Pages per Poll": must be at least 1, got 0',
		],
		[
			{ options: { maxPages: 101 } },
			'Invalid value for "Options › Max Pages per Poll": must be at most 100, got 101',
		],
		[
			{ options: { startFrom: 'date' } },
			'Invalid value for "Options › Start Date": expected a date and time, got nothing',
		],
		[
			{ watch: 'lowStock', threshold: 'fixed', thresholdValue: -1 },
			'Invalid value for "Threshold Value": must be at least 0, got -1',
		],
		[{ watch: 'orders' }, 'Invalid value for "Watch": expected one of'],
	])('%j', async (parameters, message) => {
		const cost = await requestsDuring(env.sandbox, async () => {
			await assert.rejects(
				poller(env.credentials, { watch: 'client', ...parameters }),
				(error: Error) => {
					assert.ok(error.message.startsWith(message), error.message);
					return true;
				},
			);
		});
		assert.deepEqual(cost, {});
	});
});
