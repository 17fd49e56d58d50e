/**
 * Discrete-event simulation of the pacing (nodes/shared/transport/budget.ts) with fake time:
 * `executions` concurrent executions, each making `requestsEach` requests one after the other,
 * spread over `processes` processes (one Budget each), against a model of the sandbox's limiter (a
 * fixed window that starts at the first request after the previous one ended; Reset rounded up;
 * refused requests not counted). Requests take the budget's slots as the transport does (queue,
 * probe, answers, a wait past what is left of Max Rate-Limit Wait not made); a 429 is the
 * transport's own step (rateLimited.ts: a turn, first in the queue, or a failure on time).
 * Used by pacing.test.ts and bare-429.test.ts.
 */
import { DEFAULT_MAX_WAIT_SECONDS } from '../../nodes/shared/descriptions';
import {
	newBudget,
	observeAnswer,
	paceDecision,
	reserve,
} from '../../nodes/shared/transport/budget';
import { gateWaitMs } from '../../nodes/shared/transport/learned';
import { MAX_RETRIES, backoffSeconds } from '../../nodes/shared/transport/rateLimit';
import type { RateLimitInfo } from '../../nodes/shared/transport/rateLimit';
import { onRateLimited } from '../../nodes/shared/transport/rateLimited';

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

export interface SimulationOptions {
	limit: number;
	windowSeconds: number;
	latencyMs: number;
	executions: number;
	requestsEach: number;
	processes?: number;
	/** The control: requests are sent as soon as they are made, ignoring the budget. */
	naive?: boolean;
	/** The server reports no budget: only Retry-After on a 429. */
	headerless?: boolean;
	/** The server reports nothing at all: a bare 429 (implies headerless). */
	bare?: boolean;
	/**
	 * The control for a bare 429: handled as a retry (back-off, at most MAX_RETRIES), and the
	 * budget learns nothing from it, as before issue 30.
	 */
	retryPolicy?: boolean;
	/** The credential's Rate Limit (Requests per Minute). */
	ratePerMinute?: number;
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
	/** Max Rate-Limit Wait of every request (default: the node's default). */
	maxWaitSeconds?: number;
	/**
	 * A control: each process takes itself to be alone whatever it sees (no share, no release over
	 * time), as a lone process does once it has seen no other consumer for a few windows.
	 */
	alone?: boolean;
}

export function simulate(options: SimulationOptions) {
	const { limit, windowSeconds, latencyMs, executions, requestsEach } = options;
	const processes = options.processes ?? 1;
	const headerless = options.headerless === true || options.bare === true;
	const maxWaitMs = (options.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS) * 1000;
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
			const info: RateLimitInfo = options.bare
				? {}
				: headerless
					? { retryAfterSeconds: reset }
					: { limit, remaining: 0, resetSeconds: reset, retryAfterSeconds: reset };
			return { status: 429, info };
		}
		used++;
		accepted++;
		const info = headerless ? {} : { limit, remaining: limit - used, resetSeconds: reset };
		return { status: 200, info };
	};
	const budgets = Array.from({ length: processes }, () => newBudget(NOW));
	const admitted: number[] = [];
	let done = 0;
	let failed = 0;
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
			request(nextExecution++, p, requestsEach, false, now, 0);
		}
	};
	const finish = (process: number, success: boolean) => {
		if (success) {
			done++;
			donePerProcess[process]++;
		} else failed++;
		running[process]--;
		lastDone = now;
		if (options.concurrency !== undefined) fill(process);
	};

	const request = (
		execution: number,
		process: number,
		left: number,
		first: boolean,
		startedAt: number,
		retries: number,
	) => {
		const budget = budgets[process];
		budget.learned.ratePerMinute = options.ratePerMinute;
		const ticket = budget.nextTicket++;
		if (first) budget.queue.unshift(ticket);
		else budget.queue.push(ticket);
		const check = () => {
			const decision = options.naive
				? ({ action: 'send', probe: false } as const)
				: paceDecision(budget, budget.queue.indexOf(ticket), now);
			// A wait for the reset past what is left of Max Rate-Limit Wait is not made (pacing.ts).
			const pastCap =
				decision.action === 'wait' &&
				decision.reason === 'reset' &&
				decision.ms > startedAt + maxWaitMs - now;
			if (decision.action === 'wait' && !pastCap) return at(now + decision.ms, check);
			const probe = decision.action === 'send' && decision.probe;
			budget.queue.splice(budget.queue.indexOf(ticket), 1);
			admitted.push(ticket);
			const sentAt = now;
			reserve(budget, now, probe);
			at(now + leg(), () => {
				const answer = serve();
				at(now + leg(), () => {
					const bare429 = answer.status === 429 && answer.info.retryAfterSeconds === undefined;
					// The control's budget sees a bare 429 as before issue 30: nothing to learn from.
					const apiCode = options.retryPolicy && bare429 ? 'daily_quota_exceeded' : 'rate_limited';
					observeAnswer(
						budget,
						{ ...answer, apiCode, sentAtMs: sentAt, probe, paced: !pastCap },
						now,
					);
					if (options.alone) budget.sharedUntilMs = 0;
					if (answer.status === 429) {
						const outcome = { kind: 'status', status: 429, info: answer.info } as const;
						if (options.naive) {
							// Wait for Retry-After, as the old transport did.
							const wait = (answer.info.retryAfterSeconds ?? 1) * 1000;
							return at(now + wait, () =>
								request(execution, process, left, true, startedAt, retries),
							);
						}
						if (options.retryPolicy && bare429) {
							// The retry policy of before: a back-off (capped by the wait), at most MAX_RETRIES.
							if (retries >= MAX_RETRIES) return finish(process, false);
							const waitMs = Math.min(backoffSeconds(retries, random) * 1000, maxWaitMs);
							return at(now + waitMs, () =>
								request(execution, process, left, true, startedAt, retries + 1),
							);
						}
						const gateSeconds = (gateWaitMs(budget.learned, now, 0) ?? 0) / 1000;
						const step = onRateLimited(outcome, startedAt, maxWaitMs / 1000, now, gateSeconds);
						if (step?.action === 'fail') return finish(process, false);
						return request(execution, process, left, true, startedAt, retries);
					}
					maxRequestWaitMs = Math.max(maxRequestWaitMs, sentAt - startedAt);
					if (left > 1) return request(execution, process, left - 1, false, now, 0);
					finish(process, true);
				});
			});
		};
		check();
	};
	if (options.concurrency === undefined) {
		for (let e = 0; e < executions; e++)
			at(NOW, () => request(e, e % processes, requestsEach, false, NOW, 0));
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
		/** Executions that failed (a request's wait past Max Rate-Limit Wait, or retries run out). */
		failed,
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

/** A burst in the order of the tables: limit per window, window, latency, executions, requests each. */
export const burst = (
	limit: number,
	windowSeconds: number,
	latencyMs: number,
	executions: number,
	requestsEach: number,
) => ({ limit, windowSeconds, latencyMs, executions, requestsEach });

/** One line for the test log: what a run measured. */
export function describeRun(name: string, run: ReturnType<typeof simulate>): string {
	return `# ${name}: ${run.refused}/${run.accepted + run.refused} answered 429, ${run.failed} failed, ceiling ${run.ceilingUse.toFixed(3)}, drain ${run.drainMs} ms (ideal ${run.idealMs})\n`;
}
