/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * Pacing arithmetic (nodes/shared/transport/budget.ts: budgets, slots, windows) with fake
 * time: single decisions, then a discrete-event simulation (simulate.ts) of many concurrent
 * executions (and several processes) against a model of the sandbox's limiter. The harness test
 * (pacing-burst.test.ts) proves the same against the real sandbox.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import {
	ANSWER_POLL_MS,
	BUDGET_IDLE_MS,
	MAX_BUDGETS,
	newBudget,
	observeAnswer,
	observeNoAnswer,
	paceDecision,
	pruneBudgets,
	reserve,
} from '../../nodes/shared/transport/budget';
import { isShared, releaseWaitMs } from '../../nodes/shared/transport/sharing';
import type { Budget, ObservedAnswer } from '../../nodes/shared/transport/budget';
import type { RateLimitInfo } from '../../nodes/shared/transport/rateLimit';
import { RESET_MARGIN_SECONDS } from '../../nodes/shared/transport/rateLimit';
import { DEFAULT_MAX_WAIT_SECONDS } from '../../nodes/shared/descriptions';
import { NOW, burst, simulate } from './simulate';

const MARGIN = RESET_MARGIN_SECONDS * 1000;

type Reply = Pick<ObservedAnswer, 'status' | 'info'>;

const ok = (remaining: number, resetSeconds: number, limit = 10): Reply => ({
	status: 200,
	info: { limit, remaining, resetSeconds },
});
const tooMany = (info: RateLimitInfo): Reply => ({ status: 429, info });

/** The reply to a paced request sent at `sentAtMs`, seen by the budget at `answeredAtMs`. */
function answer(
	budget: Budget,
	sentAtMs: number,
	probe: boolean,
	reply: Reply,
	answeredAtMs: number,
) {
	observeAnswer(budget, { ...reply, sentAtMs, probe, paced: true }, answeredAtMs);
}

/** One request: its slot taken at `sentAtMs`, its reply seen at `answeredAtMs`. */
function roundTrip(
	budget: Budget,
	sentAtMs: number,
	probe: boolean,
	reply: Reply,
	answeredAtMs: number,
) {
	reserve(budget, sentAtMs, probe);
	answer(budget, sentAtMs, probe, reply, answeredAtMs);
}

/** A budget past its first window (not shared), with a known window. */
function knownBudget(remaining: number, endsInMs: number): Budget {
	const budget = newBudget(NOW);
	budget.remaining = remaining;
	budget.windowEndsAtMs = NOW + endsInMs;
	budget.sharedUntilMs = NOW - 1;
	budget.limit = 10;
	return budget;
}

describe('decisions', () => {
	test("a 429 waits for the server's Retry-After, not for the end of a longer window", () => {
		const budget = knownBudget(9, 60_000);
		roundTrip(
			budget,
			NOW,
			false,
			tooMany({ limit: 10, remaining: 8, resetSeconds: 60, retryAfterSeconds: 1 }),
			NOW,
		);
		assert.equal(budget.remaining, 0);
		assert.equal(budget.windowEndsAtMs, NOW + 1_000);
		const decision = paceDecision(budget, 0, NOW);
		assert.equal(decision.action, 'wait');
		assert.ok(
			decision.action === 'wait' && decision.ms <= 1_000 + MARGIN,
			JSON.stringify(decision),
		);
	});

	test('nothing known: only the head of the queue is sent, as a probe; the others wait for its answer', () => {
		const budget = newBudget(NOW);
		assert.deepEqual(paceDecision(budget, 0, NOW), { action: 'send', probe: true });
		assert.deepEqual(paceDecision(budget, 1, NOW), {
			action: 'wait',
			ms: ANSWER_POLL_MS,
			reason: 'answer',
		});
		reserve(budget, NOW, true);
		assert.equal(paceDecision(budget, 0, NOW).action, 'wait', 'one probe at a time');
		answer(budget, NOW, true, ok(9, 10), NOW + 5);
		assert.equal(budget.probing, false);
		assert.equal(budget.inFlight, 0);
		assert.equal(budget.remaining, 9);
		assert.equal(budget.windowEndsAtMs, NOW + 10_005);
	});

	test('a known budget hands out its remaining slots in queue order, counting requests in flight', () => {
		const budget = knownBudget(3, 5000);
		assert.equal(paceDecision(budget, 2, NOW).action, 'send');
		assert.deepEqual(paceDecision(budget, 3, NOW), {
			action: 'wait',
			ms: 5000 + MARGIN,
			reason: 'reset',
		});
		reserve(budget, NOW, false);
		reserve(budget, NOW, false);
		// 2 in flight: only one slot left, for the head.
		assert.equal(paceDecision(budget, 0, NOW).action, 'send');
		assert.equal(paceDecision(budget, 1, NOW).action, 'wait');
		reserve(budget, NOW, false);
		assert.deepEqual(paceDecision(budget, 0, NOW + 1000), {
			action: 'wait',
			ms: 4000 + MARGIN,
			reason: 'reset',
		});
		// After the reset (plus margin) the window is unknown again: one probe, not a herd.
		assert.deepEqual(paceDecision(budget, 0, NOW + 5000 + MARGIN), { action: 'send', probe: true });
		assert.equal(paceDecision(budget, 1, NOW + 5000 + MARGIN).action, 'wait');
	});

	test('no budget in any dialect: one probe, then a gradual release; a bare Retry-After closes the gate for every request', () => {
		const budget = newBudget(NOW);
		roundTrip(budget, NOW, true, { status: 200, info: {} }, NOW + 5);
		assert.equal(budget.headerless, true);
		// Capacity unknown: one in flight at a time at first (learned.ts, the slow start).
		assert.deepEqual(paceDecision(budget, 0, NOW + 10), { action: 'send', probe: false });
		assert.equal(paceDecision(budget, 1, NOW + 10).action, 'wait');
		roundTrip(budget, NOW + 10, false, tooMany({ retryAfterSeconds: 3 }), NOW + 20);
		for (const position of [0, 5]) {
			assert.deepEqual(paceDecision(budget, position, NOW + 20), {
				action: 'wait',
				ms: 3000 + MARGIN,
				reason: 'reset',
			});
		}
		// At the reopening: the head alone, as a probe.
		assert.deepEqual(paceDecision(budget, 0, NOW + 3020 + MARGIN), { action: 'send', probe: true });
		assert.equal(paceDecision(budget, 1, NOW + 3020 + MARGIN).action, 'wait');
	});

	test('the window end is the tightest bound seen in it; answers out of order never raise the count', () => {
		const budget = knownBudget(9, 2000);
		reserve(budget, NOW + 100, false);
		reserve(budget, NOW + 100, false);
		// The later request's answer first (7 left), then the earlier one's (8 left).
		answer(budget, NOW + 100, false, ok(7, 2), NOW + 600);
		answer(budget, NOW + 100, false, ok(8, 2), NOW + 700);
		assert.equal(budget.remaining, 7);
		assert.equal(budget.windowEndsAtMs, NOW + 2000);
		// A request sent after the known end starts a new window with its own bound.
		roundTrip(budget, NOW + 2100, true, ok(9, 10), NOW + 2110);
		assert.equal(budget.remaining, 9);
		assert.equal(budget.windowEndsAtMs, NOW + 12_110);
	});

	test('a failed request (no answer) gives its slot back', () => {
		const budget = knownBudget(1, 5000);
		reserve(budget, NOW, false);
		assert.equal(paceDecision(budget, 0, NOW).action, 'wait');
		observeNoAnswer(budget, false, NOW + 10);
		assert.equal(paceDecision(budget, 0, NOW + 10).action, 'send');
	});

	test('signs of other consumers make the budget shared: each process takes its share', () => {
		const budget = knownBudget(10, 10_000);
		budget.windowMs = 10_000;
		assert.equal(isShared(budget, NOW), false);
		// We sent 1 request in this window, yet the server counts 4 used: someone else uses the key.
		budget.sentAtMs = [];
		roundTrip(budget, NOW, false, ok(6, 10), NOW + 10);
		assert.equal(isShared(budget, NOW + 10), true);
		// ceil(6 / 2) = 3 slots for us now.
		assert.equal(paceDecision(budget, 2, NOW + 10).action, 'send');
		assert.equal(paceDecision(budget, 3, NOW + 10).action, 'wait');
		// It stays shared for a few windows after the last sign, then it is ours again.
		assert.equal(isShared(budget, NOW + 10 + 25_000), true);
		assert.equal(isShared(budget, NOW + 10 + 45_000), false);
		// A 429 our count did not foresee while shared: one more consumer assumed.
		roundTrip(
			budget,
			NOW + 20,
			false,
			tooMany({ limit: 10, remaining: 0, resetSeconds: 10, retryAfterSeconds: 10 }),
			NOW + 30,
		);
		assert.equal(budget.consumers, 3);
	});

	test('first window: our share rounded up (a lone process uses it all); once others are seen: rounded down', () => {
		const budget = newBudget(NOW);
		roundTrip(budget, NOW, true, ok(7, 10, 8), NOW + 5);
		assert.equal(isShared(budget, NOW + 5), false);
		// ceil(7 / 2) = 4 now; the others wait for answers, not for the reset: the window has slots.
		assert.equal(paceDecision(budget, 3, NOW + 5).action, 'send');
		assert.deepEqual(paceDecision(budget, 4, NOW + 5), {
			action: 'wait',
			ms: ANSWER_POLL_MS,
			reason: 'answer',
		});
		// The next window is ours alone unless something shows otherwise (1 used: our probe): all
		// 9 slots are ours, at once (no sign of another consumer: nothing is released over time).
		roundTrip(budget, NOW + 10_100, true, ok(9, 10), NOW + 10_105);
		assert.equal(paceDecision(budget, 3, NOW + 10_105).action, 'send');
		assert.equal(paceDecision(budget, 8, NOW + 10_105).action, 'send');
		// 1 left while shared: floor(1 / 2) = 0, so two processes cannot both take it.
		budget.sharedUntilMs = NOW + 60_000;
		budget.remaining = 1;
		assert.equal(paceDecision(budget, 0, NOW + 10_200).action, 'wait');
	});

	test('while another consumer is likely, no process takes a whole window at once: half the limit goes, the rest is released over the first half of the window', () => {
		// A window of 10 s that started now (the first answer said 10 s), limit 10, 1 sent (the probe);
		// others seen lately (one consumer counted, so that only the release shows, not the share).
		const likely = (budget: Budget) => {
			budget.sharedUntilMs = NOW + 60_000;
			budget.consumers = 1;
			return budget;
		};
		const budget = likely(knownBudget(10, 0));
		roundTrip(budget, NOW, true, ok(9, 10), NOW);
		// The 2nd to 5th request of the window go at once (positions 0 to 3).
		for (const position of [0, 1, 2, 3]) {
			assert.equal(paceDecision(budget, position, NOW).action, 'send');
		}
		// The 6th is released 1 s in (a fifth of the 5 s over which the other half is released), the
		// 10th at 5 s; both wait for that, not for an answer or the reset.
		assert.deepEqual(paceDecision(budget, 4, NOW), { action: 'wait', ms: 1000, reason: 'release' });
		assert.deepEqual(paceDecision(budget, 8, NOW + 1000), {
			action: 'wait',
			ms: 4000,
			reason: 'release',
		});
		assert.equal(paceDecision(budget, 8, NOW + 5000).action, 'send');
		// What this process sent counts: with 5 sent, the next is the 6th of the window.
		for (const at of [1, 2, 3, 4]) reserve(budget, NOW + at, false);
		assert.equal(releaseWaitMs(budget, 0, NOW + 10), 990);
		// A limit not known yet: nothing is held back.
		assert.equal(releaseWaitMs(newBudget(NOW), 5, NOW), 0);
		// A long window (100 per hour): the rest is released over its first 10 s, not half an hour.
		const hourly = likely(knownBudget(100, 0));
		roundTrip(hourly, NOW, true, ok(99, 3600, 100), NOW);
		assert.equal(releaseWaitMs(hourly, 98, NOW), 10_000);
		assert.equal(releaseWaitMs(hourly, 48, NOW), 0);
		// A lone process (no sign of others since its first window): nothing is held back.
		const lone = knownBudget(10, 0);
		roundTrip(lone, NOW, true, ok(9, 10), NOW);
		assert.equal(releaseWaitMs(lone, 8, NOW), 0);
		// ...and in its first window, when nothing is known of others yet, the release holds.
		const first = newBudget(NOW);
		roundTrip(first, NOW, true, ok(9, 10), NOW);
		assert.equal(releaseWaitMs(first, 8, NOW), 5000);
		// One per window: that one goes at once.
		const single = knownBudget(1, 60_000);
		single.limit = 1;
		single.windowMs = 60_000;
		assert.equal(paceDecision(single, 0, NOW).action, 'send');
	});

	test('idle budgets are forgotten, and there are never more than MAX_BUDGETS', () => {
		const budgets = new Map<string, Budget>();
		for (let i = 0; i < MAX_BUDGETS + 50; i++) budgets.set(`k${i}`, newBudget(NOW + i));
		const busy = newBudget(NOW - BUDGET_IDLE_MS * 2);
		busy.inFlight = 1;
		budgets.set('busy', busy);
		pruneBudgets(budgets, NOW + MAX_BUDGETS + 50);
		assert.equal(budgets.size, MAX_BUDGETS);
		assert.ok(budgets.has('busy'), 'a budget in use is kept');
		assert.ok(!budgets.has('k0') && budgets.has(`k${MAX_BUDGETS + 49}`), 'oldest idle go first');
		pruneBudgets(budgets, NOW + MAX_BUDGETS + 50 + BUDGET_IDLE_MS + 1000);
		assert.deepEqual([...budgets.keys()], ['busy']);
	});
});

describe('many concurrent executions sharing one key (fake time)', () => {
	for (const [limit, windowSeconds, latencyMs, executions, requestsEach] of [
		[30, 10, 5, 30, 6],
		[30, 10, 40, 60, 6],
		[100, 60, 300, 40, 8],
		[10, 2, 40, 12, 5],
		[5, 1, 10, 8, 4],
	]) {
		test(`${executions} executions x ${requestsEach} requests, ${limit} per ${windowSeconds} s, ${latencyMs} ms: no 429, the ceiling used`, () => {
			const run = simulate(burst(limit, windowSeconds, latencyMs, executions, requestsEach));
			assert.equal(run.done, executions);
			assert.equal(run.accepted, executions * requestsEach);
			assert.equal(run.refused, 0, `${run.refused} answered 429`);
			assert.ok(run.ceilingUse >= 0.95, `ceiling use ${run.ceilingUse.toFixed(3)}`);
			assert.ok(
				run.drainMs <= run.idealMs * 1.1 + 2000,
				`drained in ${run.drainMs} ms, ideal ${run.idealMs}`,
			);
		});
	}

	test('control: without the budget the same burst is answered 429 many times', () => {
		const run = simulate({ ...burst(30, 10, 5, 30, 6), naive: true });
		assert.equal(run.done, 30);
		assert.ok(run.refused > 30, `${run.refused} answered 429`);
	});

	test('no herd at the reset: the first request of each new window is alone until its answer', () => {
		const latencyMs = 40;
		const run = simulate(burst(10, 2, latencyMs, 20, 3));
		assert.equal(run.refused, 0);
		// Windows start at the first arrival after the previous one ended; the next arrival comes
		// only after the probe's answer made it back (a full round trip later).
		let windowEnd = 0;
		let windowsSeen = 0;
		for (let i = 0; i < run.arrivals.length - 1; i++) {
			if (run.arrivals[i] < windowEnd) continue;
			windowEnd = run.arrivals[i] + 2000;
			windowsSeen++;
			assert.ok(
				run.arrivals[i + 1] - run.arrivals[i] >= latencyMs,
				`window ${windowsSeen}: herd at the reset`,
			);
		}
		assert.ok(windowsSeen >= 5);
	});

	test('slots are handed out first come, first served', () => {
		const run = simulate(burst(5, 1, 10, 12, 1));
		assert.deepEqual(
			run.admitted,
			[...run.admitted].sort((a, b) => a - b),
		);
		assert.equal(run.refused, 0);
	});

	test('n8n queue mode, 2 workers of 10, one slower to start: both get the key, no request waits near the default Max Rate-Limit Wait', () => {
		// Before the window was released over time, the worker that started 300 ms late got nothing
		// for a minute: its requests waited 60.5 s (past the default 60 s, so its execution failed)
		// and it ran 10 executions against the other's 30.
		for (const staggerMs of [0, 300, 700, 1500]) {
			const run = simulate({
				...burst(30, 10, 20, 40, 6),
				processes: 2,
				concurrency: 10,
				jitterMs: 40,
				staggerMs,
			});
			const summary = `${staggerMs} ms late: per worker ${JSON.stringify(run.donePerProcess)}, longest wait ${(run.maxRequestWaitMs / 1000).toFixed(1)} s, ${run.refused} answered 429`;
			assert.equal(run.done, 40, summary);
			assert.ok(run.maxRequestWaitMs < DEFAULT_MAX_WAIT_SECONDS * 500, summary);
			assert.ok(Math.min(...run.donePerProcess) >= 12, summary);
			assert.ok(run.refusedShare < 0.05, summary);
		}
	});

	test('control: workers that take each window as it comes (no share, no release over time) starve the late one', () => {
		const late = (alone: boolean) =>
			simulate({
				...burst(30, 10, 20, 40, 6),
				processes: 2,
				concurrency: 10,
				jitterMs: 40,
				staggerMs: 300,
				alone,
			});
		const paced = late(false);
		const control = late(true);
		process.stdout.write(
			`# a worker 300 ms late: longest wait ${paced.maxRequestWaitMs} ms, per worker ${JSON.stringify(paced.donePerProcess)}; control: ${control.maxRequestWaitMs} ms, ${control.failed} failed, per worker ${JSON.stringify(control.donePerProcess)}\n`,
		);
		assert.ok(
			control.failed > 0 || control.maxRequestWaitMs >= DEFAULT_MAX_WAIT_SECONDS * 500,
			`control: longest wait ${control.maxRequestWaitMs} ms, ${control.failed} failed`,
		);
	});

	test('two processes on one key: few 429s, measured against the same burst without the budget', () => {
		const shared = simulate({ ...burst(30, 10, 20, 40, 6), processes: 2 });
		assert.equal(shared.done, 40);
		assert.ok(shared.refusedShare < 0.05, `429 share ${(shared.refusedShare * 100).toFixed(1)} %`);
		const naive = simulate({ ...burst(30, 10, 20, 40, 6), processes: 2, naive: true });
		process.stdout.write(
			`# ${`two processes: ${shared.refused}/${shared.accepted + shared.refused} answered 429; control: ${naive.refused}/${naive.accepted + naive.refused}`}\n`,
		);
		assert.ok(
			naive.refusedShare > 0.1,
			`control 429 share ${(naive.refusedShare * 100).toFixed(1)} %`,
		);
	});
});
