/**
 * Discrete-event simulation of the pacer (nodes/shared/transport/pacer.ts) with fake time:
 * `executions` concurrent executions, each making `requestsEach` requests one after the other,
 * spread over `processes` processes (one pacer each: n8n queue-mode workers), against limiters in
 * a row (the sandbox's own algorithms, sandbox/limiters.ts: a gateway in front of the ERP, or the
 * ERP alone), each answering with budget headers, Retry-After only, or a bare 429. A request takes
 * its turn as the transport does (`turnByMs`: by Max Rate-Limit Wait at the latest, at once when
 * the key is closed past it), and after a 429 the attempt loop's own decision (request.ts
 * `decide`: a turn, first in line, or a failure on time).
 *
 * The control (`burst: true`) is the pacing of before, reduced to its rule: the headers are
 * permission, a request goes while the last answer said budget was left (minus those in flight),
 * else at the window's reset; a 429 closes the key until its Retry-After (a bare one: 1 s).
 */
import { decide } from '../../nodes/shared/transport/request';
import {
	WAIT_SLICE_MS,
	answered,
	newPace,
	sent,
	turnByMs,
} from '../../nodes/shared/transport/pacer';
import type { RateLimitInfo } from '../../nodes/shared/transport/rateHeaders';
import { DEFAULT_MAX_WAIT_SECONDS } from '../../nodes/shared/transport/settings';
import { newLimiter } from '../../sandbox/limiters';
import type { LimiterConfig } from '../../sandbox/limiters';

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A limiter in the way and what it answers: budget headers, Retry-After only, or a bare 429. */
export interface SimLimiter extends LimiterConfig {
	reports: 'headers' | 'retry-after' | 'bare';
}

export interface SimulationOptions {
	/** Front first: a request refused by one never reaches the next. */
	limiters: SimLimiter[];
	latencyMs: number;
	executions: number;
	requestsEach: number;
	processes?: number;
	/** Executions each process runs at once (a worker's --concurrency); default: all, round-robin. */
	concurrency?: number;
	/** Process p starts p times this late. */
	staggerMs?: number;
	/** Each leg of a round trip takes latencyMs/2 plus up to this much more (seeded, repeatable). */
	jitterMs?: number;
	/** The credential's Rate Limit (Requests per Minute). */
	ratePerMinute?: number;
	maxWaitSeconds?: number;
	/** The control: the pacing of before (headers as permission, see above). */
	burst?: boolean;
}

export function simulate(options: SimulationOptions) {
	const { latencyMs, executions, requestsEach } = options;
	const processes = options.processes ?? 1;
	const maxWaitSeconds = options.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
	let seed = 12345;
	const random = () => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return seed / 2147483648;
	};
	const leg = () => latencyMs / 2 + (options.jitterMs ?? 0) * random();
	const events: Array<{ at: number; seq: number; run: () => void }> = [];
	let seq = 0;
	let now = NOW;
	const at = (time: number, run: () => void) => events.push({ at: time, seq: seq++, run });

	// The limiters, front first.
	const limiters = options.limiters.map((l) => ({ ...l, limiter: newLimiter(l) }));
	let accepted = 0;
	let refused = 0;
	const serve = (): { status: number; info: RateLimitInfo } => {
		let info: RateLimitInfo = {};
		for (const l of limiters) {
			const v = l.limiter.take(now);
			const headers = { limit: v.limit, remaining: v.remaining, resetSeconds: v.resetSeconds };
			if (!v.accepted) {
				refused++;
				if (l.reports === 'bare') return { status: 429, info: {} };
				const retryAfterSeconds = v.resetSeconds;
				if (l.reports === 'retry-after') return { status: 429, info: { retryAfterSeconds } };
				return { status: 429, info: { ...headers, retryAfterSeconds } };
			}
			// The innermost limiter that reports a budget is the one the answer's headers show.
			if (l.reports === 'headers') info = headers;
		}
		accepted++;
		return { status: 200, info };
	};

	const paces = Array.from({ length: processes }, () => newPace(NOW));
	// The control's state, per process: what the last answer said.
	const permits = paces.map(() => ({ remaining: undefined as number | undefined, until: 0 }));
	let done = 0;
	let failed = 0;
	let lastDone = NOW;
	const running = paces.map(() => 0);
	let nextExecution = 0;
	const fill = (p: number) => {
		while (nextExecution < executions && running[p] < options.concurrency!) {
			running[p]++;
			nextExecution++;
			request(p, requestsEach, false, now);
		}
	};
	const finish = (p: number, success: boolean) => {
		if (success) done++;
		else failed++;
		running[p]--;
		lastDone = now;
		if (options.concurrency !== undefined) fill(p);
	};

	const request = (p: number, left: number, first: boolean, startedAt: number) => {
		const pace = paces[p];
		pace.credentialRate = options.ratePerMinute;
		const ticket = pace.nextTicket++;
		if (first) pace.queue.unshift(ticket);
		else pace.queue.push(ticket);
		const go = () => {
			pace.queue.splice(pace.queue.indexOf(ticket), 1);
			const sentAt = now;
			sent(pace, now);
			at(now + leg(), () => {
				const answer = serve();
				at(now + leg(), () => arrived(p, left, startedAt, sentAt, answer));
			});
		};
		const check = () => {
			if (options.burst) {
				const { remaining, until } = permits[p];
				if (now < until) return at(until, check);
				const left = remaining === undefined || remaining - pace.inFlight > 0;
				// Budget left, or a probe of the new window.
				if (left || pace.inFlight === 0) return go();
				return at(now + 20, check);
			}
			const deadline = startedAt + maxWaitSeconds * 1000;
			const turn = turnByMs(pace, pace.queue.indexOf(ticket), now, deadline);
			if (turn <= now) return go();
			at(Math.min(turn, now + WAIT_SLICE_MS), check);
		};
		check();
	};

	const arrived = (
		p: number,
		left: number,
		startedAt: number,
		sentAt: number,
		answer: { status: number; info: RateLimitInfo },
	) => {
		const pace = paces[p];
		answered(pace, { ...answer, sentAtMs: sentAt }, now);
		if (options.burst) {
			const { remaining, resetSeconds, retryAfterSeconds } = answer.info;
			const permit = permits[p];
			permit.remaining = remaining;
			if (answer.status === 429) permit.until = now + (retryAfterSeconds ?? 1) * 1000;
			else if (remaining === 0 && resetSeconds !== undefined)
				permit.until = now + resetSeconds * 1000;
		}
		if (answer.status === 429) {
			const outcome = { kind: 'status', status: 429, info: answer.info } as const;
			const times = {
				retry: 0,
				maxWaitSeconds,
				waitedMs: now - startedAt,
				closedForMs: options.burst ? permits[p].until - now : pace.closedUntilMs - now,
			};
			const decision = decide(outcome, { method: 'POST' }, times, random);
			if (decision.action === 'fail') return finish(p, false);
			return request(p, left, true, startedAt);
		}
		if (left > 1) return request(p, left - 1, false, now);
		finish(p, true);
	};

	if (options.concurrency === undefined) {
		for (let e = 0; e < executions; e++) {
			running[e % processes]++;
			at(NOW, () => request(e % processes, requestsEach, false, NOW));
		}
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
	const total = executions * requestsEach;
	// The ideal: every request at the tightest limiter's rate.
	const ratePerMs = Math.min(...options.limiters.map((l) => l.limit / (l.windowSeconds * 1000)));
	const idealMs = total / ratePerMs;
	return {
		accepted,
		refused,
		done,
		/** Executions that failed (a wait past Max Rate-Limit Wait). */
		failed,
		refusedShare: refused / (accepted + refused),
		drainMs: lastDone - NOW,
		idealMs,
	};
}

/** One line for the test log: what a run measured. */
export function describeRun(name: string, run: ReturnType<typeof simulate>): string {
	return `# ${name}: ${run.refused}/${run.accepted + run.refused} answered 429, ${run.failed} failed, drain ${Math.round(run.drainMs)} ms (ideal ${Math.round(run.idealMs)}, x${(run.drainMs / run.idealMs).toFixed(2)})\n`;
}
