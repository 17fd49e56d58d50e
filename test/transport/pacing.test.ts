/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * Pacing arithmetic (nodes/shared/transport/budget.ts: budgets, slots, windows) with fake
 * time: single decisions, then a discrete-event simulation of many concurrent executions (and
 * several processes) against a model of the sandbox's limiter. The harness test
 * (pacing-burst.test.ts) proves the same against the real sandbox.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import {
	ANSWER_POLL_MS,
	BUDGET_IDLE_MS,
	MAX_BUDGETS,
	isShared,
	newBudget,
	observeAnswer,
	observeNoAnswer,
	paceDecision,
	pruneBudgets,
	releaseWaitMs,
	reserve,
} from '../../nodes/shared/transport/budget';
import type { Budget, ObservedAnswer } from '../../nodes/shared/transport/budget';
import type { RateLimitInfo } from '../../nodes/shared/transport/rateLimit';
import { RESET_MARGIN_SECONDS } from '../../nodes/shared/transport/rateLimit';
import { DEFAULT_MAX_WAIT_SECONDS } from '../../nodes/shared/descriptions';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
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
		// 9 slots are ours, half the limit at once, the rest released over the window's first half.
		roundTrip(budget, NOW + 10_100, true, ok(9, 10), NOW + 10_105);
		assert.equal(paceDecision(budget, 3, NOW + 10_105).action, 'send');
		assert.equal(paceDecision(budget, 8, NOW + 10_105).action, 'wait');
		assert.equal(paceDecision(budget, 8, NOW + 15_105).action, 'send');
		// 1 left while shared: floor(1 / 2) = 0, so two processes cannot both take it.
		budget.sharedUntilMs = NOW + 60_000;
		budget.remaining = 1;
		assert.equal(paceDecision(budget, 0, NOW + 10_200).action, 'wait');
	});

	test('no process takes a whole window at once: half the limit goes, the rest is released over the first half of the window', () => {
		// A window of 10 s that started now (the first answer said 10 s), limit 10, 1 sent (the probe).
		const budget = knownBudget(10, 0);
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
		const hourly = knownBudget(100, 0);
		roundTrip(hourly, NOW, true, ok(99, 3600, 100), NOW);
		assert.equal(releaseWaitMs(hourly, 98, NOW), 10_000);
		assert.equal(releaseWaitMs(hourly, 48, NOW), 0);
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

/**
 * Discrete-event simulation: `executions` concurrent executions, each making `requestsEach`
 * requests one after the other, spread over `processes` processes (one Budget each), against a
 * model of the sandbox's limiter (a fixed window that starts at the first request after the
 * previous one ended; Reset rounded up; refused requests not counted). Requests take the budget's
 * slots as the transport does (queue, probe, answers); a 429 is retried first in the queue.
 * `naive`: the control, requests are sent as soon as they are made, ignoring the budget.
 */
function simulate(options: {
	limit: number;
	windowSeconds: number;
	latencyMs: number;
	executions: number;
	requestsEach: number;
	processes?: number;
	naive?: boolean;
	/** The server reports no budget: only Retry-After on a 429. */
	headerless?: boolean;
	/**
	 * Executions each process runs at once (n8n's worker --concurrency); the others wait in one
	 * shared job queue and go to whichever process frees a place first. Default: all at once,
	 * spread round-robin.
	 */
	concurrency?: number;
	/** Each leg of a round trip takes latencyMs/2 plus up to this much more (seeded, repeatable). */
	jitterMs?: number;
	/** Process p starts its first executions p times this late (a worker that is slower to start). */
	staggerMs?: number;
}) {
	const { limit, windowSeconds, latencyMs, executions, requestsEach } = options;
	const processes = options.processes ?? 1;
	let seed = 12345;
	const random = () => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return seed / 2147483648;
	};
	const leg = () => latencyMs / 2 + (options.jitterMs ?? 0) * random();
	type Event = { at: number; seq: number; run: () => void };
	const events: Event[] = [];
	let seq = 0;
	let now = NOW;
	const at = (time: number, run: () => void) => {
		events.push({ at: time, seq: seq++, run });
	};
	// The server.
	let windowEnd = 0;
	let used = 0;
	let accepted = 0;
	let refused = 0;
	const windows: number[] = [];
	const arrivals: number[] = [];
	const serve = (): { status: number; info: RateLimitInfo } => {
		arrivals.push(now);
		if (now >= windowEnd) {
			if (windowEnd > 0) windows.push(used);
			windowEnd = now + windowSeconds * 1000;
			used = 0;
		}
		const reset = Math.max(1, Math.ceil((windowEnd - now) / 1000));
		if (used >= limit) {
			refused++;
			return {
				status: 429,
				info: options.headerless
					? { retryAfterSeconds: reset }
					: { limit, remaining: 0, resetSeconds: reset, retryAfterSeconds: reset },
			};
		}
		used++;
		accepted++;
		const info = options.headerless ? {} : { limit, remaining: limit - used, resetSeconds: reset };
		return { status: 200, info };
	};
	const budgets = Array.from({ length: processes }, () => newBudget(NOW));
	const admitted: number[] = [];
	let done = 0;
	let lastDone = NOW;
	// Each request's whole wait: from its first attempt to the one that was accepted.
	let maxRequestWaitMs = 0;
	const donePerProcess = budgets.map(() => 0);
	const running = budgets.map(() => 0);
	let nextExecution = 0;
	/** Process p takes jobs from the shared queue up to its concurrency (as an n8n worker does). */
	const fill = (p: number) => {
		while (nextExecution < executions && running[p] < options.concurrency!) {
			running[p]++;
			request(nextExecution++, p, requestsEach, false, now);
		}
	};

	const request = (
		execution: number,
		process: number,
		left: number,
		first: boolean,
		startedAt: number,
	) => {
		const budget = budgets[process];
		const ticket = budget.nextTicket++;
		if (first) budget.queue.unshift(ticket);
		else budget.queue.push(ticket);
		const check = () => {
			const decision = options.naive
				? ({ action: 'send', probe: false } as const)
				: paceDecision(budget, budget.queue.indexOf(ticket), now);
			if (decision.action === 'wait') return at(now + decision.ms, check);
			budget.queue.splice(budget.queue.indexOf(ticket), 1);
			admitted.push(ticket);
			const sentAt = now;
			reserve(budget, now, decision.probe);
			at(now + leg(), () => {
				const answer = serve();
				at(now + leg(), () => {
					observeAnswer(
						budget,
						{ ...answer, sentAtMs: sentAt, probe: decision.probe, paced: true },
						now,
					);
					if (answer.status === 429) {
						// Naive: wait for Retry-After, as the old transport did; paced: the budget waits.
						const wait = options.naive ? (answer.info.retryAfterSeconds ?? 1) * 1000 : 0;
						return at(now + wait, () => request(execution, process, left, true, startedAt));
					}
					maxRequestWaitMs = Math.max(maxRequestWaitMs, sentAt - startedAt);
					if (left > 1) return request(execution, process, left - 1, false, now);
					done++;
					donePerProcess[process]++;
					running[process]--;
					lastDone = now;
					if (options.concurrency !== undefined) fill(process);
				});
			});
		};
		check();
	};
	if (options.concurrency === undefined) {
		for (let e = 0; e < executions; e++)
			at(NOW, () => request(e, e % processes, requestsEach, false, NOW));
		nextExecution = executions;
	} else {
		for (let p = 0; p < processes; p++) at(NOW + p * (options.staggerMs ?? 0), () => fill(p));
	}
	while (events.length > 0) {
		events.sort((a, b) => a.at - b.at || a.seq - b.seq);
		const event = events.shift()!;
		now = event.at;
		event.run();
	}
	windows.push(used);
	const total = executions * requestsEach;
	const idealMs = (Math.ceil(total / limit) - 1) * windowSeconds * 1000 + latencyMs;
	const full = windows.slice(0, -1);
	return {
		accepted,
		refused,
		done,
		refusedShare: refused / (accepted + refused),
		// Of the windows the burst filled (all but the last), the share of the ceiling used.
		ceilingUse: full.length === 0 ? 1 : full.reduce((a, b) => a + b, 0) / (full.length * limit),
		drainMs: lastDone - NOW,
		idealMs,
		arrivals,
		admitted,
		maxRequestWaitMs,
		donePerProcess,
	};
}

/** A burst in the order of the table below: limit per window, window, latency, executions, requests each. */
const burst = (
	limit: number,
	windowSeconds: number,
	latencyMs: number,
	executions: number,
	requestsEach: number,
) => ({ limit, windowSeconds, latencyMs, executions, requestsEach });

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

describe('a server that reports nothing but Retry-After (fake time)', () => {
	for (const [limit, windowSeconds, latencyMs, executions, requestsEach] of [
		[30, 10, 5, 30, 6],
		[30, 10, 40, 60, 6],
		[100, 60, 300, 40, 8],
		[10, 2, 40, 12, 5],
	]) {
		test(`${executions} executions x ${requestsEach} requests, ${limit} per ${windowSeconds} s, ${latencyMs} ms: under 10 % answered 429, at least 85 % of the ceiling`, () => {
			const run = simulate({
				...burst(limit, windowSeconds, latencyMs, executions, requestsEach),
				headerless: true,
			});
			process.stdout.write(
				`# header-less ${limit}/${windowSeconds}s ${latencyMs}ms ${executions}x${requestsEach}: ${run.refused}/${run.accepted + run.refused} answered 429, ceiling ${run.ceilingUse.toFixed(3)}, drain ${run.drainMs} ms (ideal ${run.idealMs})\n`,
			);
			assert.equal(run.done, executions);
			assert.equal(run.accepted, executions * requestsEach);
			assert.ok(run.refusedShare < 0.1, `429 share ${(run.refusedShare * 100).toFixed(1)} %`);
			assert.ok(run.ceilingUse >= 0.85, `ceiling use ${run.ceilingUse.toFixed(3)}`);
		});
	}

	test('control: the same header-less burst sent as soon as made is answered 429 many times', () => {
		const run = simulate({ ...burst(30, 10, 5, 30, 6), headerless: true, naive: true });
		assert.equal(run.done, 30);
		assert.ok(run.refusedShare > 0.3, `429 share ${(run.refusedShare * 100).toFixed(1)} %`);
	});
});
