// The pacer: each key's rate (a key: what the server limits, credentials.ts) in one place, whatever
// limiter (fixed or sliding window, token or leaky bucket) the ERP or a gateway runs and reports.
// - A request's turn (its moment to be sent) comes at the head of the key's queue, evenly spaced a
//   little under the known rate (headers, else the credential Rate Limit, else the spec's 100/min),
//   one interval after the last turn, so that timer lateness never adds up. Headers grant no burst.
// - A 429 multiplies the rate by CUT_FACTOR (if its request was sent since the last cut; down to
//   MIN_RATE_SHARE of the known rate) and closes the key until Retry-After, else the reset, else
//   one interval at the new rate. Each accepted request adds back RECOVER_STEP of the rate where
//   refusals began (as TCP finds a link's capacity): an unknown limiter, or another process on the
//   key, is found without a model of it.
// - A turn due past Max Rate-Limit Wait is taken then (the server decides); request.ts fails a
//   429 whose wait would pass it. The arithmetic takes the time as a parameter (fake in tests).
import { createHash } from 'crypto';
import { sleep } from 'n8n-workflow';

import type { RateLimitInfo } from './rateHeaders';

/** The clock of every wait: monotonic, never set back as Date can be. */
export const clockMs = (): number => performance.now();

export const SPEC_RATE_PER_MINUTE = 100;
/** Requests go this much under the known rate, so that network jitter never overflows it. */
export const RATE_MARGIN = 0.97;
export const CUT_FACTOR = 0.5;
export const MIN_RATE_SHARE = 1 / 16;
const RECOVER_STEP = 1 / 50;
/** Added to a server's reset, so that the request lands after it. */
export const RESET_MARGIN_MS = 20;
/** A waiting request looks again (and notices a cancellation) at least this often. */
export const WAIT_SLICE_MS = 200;
/** An idle key (nothing waiting or in flight) is forgotten after this; MAX_KEYS kept at most. */
export const IDLE_MS = 15 * 60_000;
export const MAX_KEYS = 500;

export function newPace(nowMs: number) {
	return {
		/** Per minute: the rate a 429 cut to (undefined: the known rate), and where refusals began. */
		cutRate: undefined as number | undefined,
		refusedRate: undefined as number | undefined,
		/** When the rate was last cut (-Infinity: never), and whether anything was accepted since. */
		cutAtMs: -Infinity,
		acceptedSinceCut: true,
		/** Nothing is sent before then (a 429's wait, or a window used up). */
		closedUntilMs: -Infinity,
		lastSentMs: -Infinity,
		/** The headers' limit per window, and the longest window seen (ms). */
		limit: undefined as number | undefined,
		windowMs: 0,
		/** The current window's end (the tightest bound its answers gave) and what is left of it. */
		windowEndMs: undefined as number | undefined,
		remaining: undefined as number | undefined,
		/** The credential's rate, as it says now (undefined: not set). */
		credentialRate: undefined as number | undefined,
		inFlight: 0,
		/** Waiting tickets, first come first served (a refused request goes first). */
		queue: [] as number[],
		/** When each waiting ticket last looked (one whose wait never returns is passed over). */
		seen: new Map<number, number>(),
		nextTicket: 0,
		lastUsedMs: nowMs,
	};
}

export type Pace = ReturnType<typeof newPace>;

/** Rate per minute: the headers' limit per window, else the credential's, else the spec's. */
function knownRate(pace: Pace): number {
	if (pace.limit !== undefined && pace.windowMs > 0) return (pace.limit * 60_000) / pace.windowMs;
	return pace.credentialRate ?? SPEC_RATE_PER_MINUTE;
}

/** The current rate per minute: the known rate with its margin, or lower after a 429. */
export function currentRate(pace: Pace): number {
	return Math.min(knownRate(pace) * RATE_MARGIN, pace.cutRate ?? Infinity);
}

function intervalMs(pace: Pace, nowMs: number): number {
	let interval = 60_000 / currentRate(pace);
	// What is left of the headers' window, spread to its end (others may be using it too).
	const { windowEndMs, remaining } = pace;
	if (windowEndMs !== undefined && remaining !== undefined && nowMs < windowEndMs) {
		const left = remaining - pace.inFlight;
		if (left > 0) interval = Math.max(interval, (windowEndMs - nowMs) / left);
	}
	return interval;
}

/** When the request at `position` in the queue (0: the head, the only one sent) should go. */
export function turnAtMs(pace: Pace, position: number, nowMs: number): number {
	return Math.max(nowMs, dueMs(pace, nowMs)) + position * intervalMs(pace, nowMs);
}

/** When the head's turn comes: one interval after the last turn, and not before the key opens. */
export function dueMs(pace: Pace, nowMs: number): number {
	return Math.max(pace.closedUntilMs, pace.lastSentMs + intervalMs(pace, nowMs));
}

/** turnAtMs, by `deadlineMs` (end of Max Rate-Limit Wait) at the latest; now if closed past it. */
export function turnByMs(pace: Pace, position: number, nowMs: number, deadlineMs: number): number {
	return pace.closedUntilMs > deadlineMs
		? nowMs
		: Math.min(turnAtMs(pace, position, nowMs), deadlineMs);
}

/** Sent now, due at `dueAtMs`: a late turn keeps its place (by a quarter interval at most). */
export function sent(pace: Pace, nowMs: number, dueAtMs = nowMs): void {
	pace.lastSentMs = Math.max(Math.min(dueAtMs, nowMs), nowMs - intervalMs(pace, nowMs) / 4);
	pace.inFlight++;
	pace.lastUsedMs = nowMs;
}

interface PaceAnswer {
	status: number;
	apiCode?: string;
	info: RateLimitInfo;
	sentAtMs: number;
}

function readWindow(pace: Pace, info: RateLimitInfo, nowMs: number): void {
	if (info.remaining === undefined || info.resetSeconds === undefined) return;
	if (info.limit !== undefined) pace.limit = info.limit;
	pace.windowMs = Math.max(pace.windowMs, info.resetSeconds * 1000);
	// Resets are whole seconds rounded up, so each answer bounds the end from above; a count that
	// went up, or an end passed, is a new window.
	const bound = nowMs + info.resetSeconds * 1000;
	const newWindow =
		pace.windowEndMs === undefined ||
		nowMs >= pace.windowEndMs ||
		info.remaining > (pace.remaining ?? Infinity);
	pace.windowEndMs = newWindow ? bound : Math.min(pace.windowEndMs!, bound);
	pace.remaining = newWindow ? info.remaining : Math.min(pace.remaining!, info.remaining);
}

/** Takes in an answer (none: the request got no HTTP answer). */
export function answered(pace: Pace, answer: PaceAnswer | undefined, nowMs: number): void {
	pace.inFlight = Math.max(0, pace.inFlight - 1);
	pace.lastUsedMs = nowMs;
	if (answer === undefined || answer.apiCode === 'daily_quota_exceeded') return;
	readWindow(pace, answer.info, nowMs);
	if (answer.status !== 429) {
		if (answer.status >= 500) return;
		pace.acceptedSinceCut = true;
		if (pace.cutRate !== undefined) {
			const raised = pace.cutRate + (pace.refusedRate ?? knownRate(pace)) * RECOVER_STEP;
			pace.cutRate = raised >= knownRate(pace) * RATE_MARGIN ? undefined : raised;
		}
		// The window is used up (by us or others): nothing goes before its end.
		const { windowEndMs, remaining } = pace;
		if (windowEndMs !== undefined && remaining !== undefined && remaining - pace.inFlight <= 0) {
			pace.closedUntilMs = Math.max(pace.closedUntilMs, windowEndMs + RESET_MARGIN_MS);
		}
		return;
	}
	// A 429: slower, whatever the headers said.
	if (answer.sentAtMs >= pace.cutAtMs) {
		const rate = currentRate(pace);
		if (pace.acceptedSinceCut) pace.refusedRate = rate;
		pace.cutRate = Math.max(knownRate(pace) * MIN_RATE_SHARE, rate * CUT_FACTOR);
		pace.cutAtMs = nowMs;
		pace.acceptedSinceCut = false;
	}
	// The wait it names (Retry-After, else the window's reset plus a margin), else one interval.
	const { retryAfterSeconds: after, resetSeconds: reset } = answer.info;
	let wait = 60_000 / currentRate(pace);
	if (after !== undefined) wait = after * 1000;
	else if (reset !== undefined) wait = reset * 1000 + RESET_MARGIN_MS;
	pace.closedUntilMs = Math.max(pace.closedUntilMs, nowMs + wait);
}

/** Forgets idle keys unused for IDLE_MS, and past MAX_KEYS the least recently used idle ones. */
export function prune(paces: Map<string, Pace>, nowMs: number): void {
	const idle = (p: Pace) => p.queue.length === 0 && p.inFlight === 0;
	for (const [key, pace] of paces) {
		if (idle(pace) && nowMs - pace.lastUsedMs > IDLE_MS) paces.delete(key);
	}
	if (paces.size <= MAX_KEYS) return;
	const oldest = [...paces]
		.filter(([, pace]) => idle(pace))
		.sort(([, a], [, b]) => a.lastUsedMs - b.lastUsedMs);
	for (const [key] of oldest.slice(0, paces.size - MAX_KEYS)) paces.delete(key);
}

const paces = new Map<string, Pace>();

/** A key's name: a hash of the credential type, base URL and key, so no secret is kept in clear. */
export function paceKey(credentialType: string, baseUrl: string, key: string): string {
	return createHash('sha256').update(`${credentialType}\n${baseUrl}\n${key}`).digest('hex');
}

/** Waits in slices: `sleep` honours `signal` only from n8n 2.34, so a cancel rejects within one. */
export async function wait(ms: number, signal?: AbortSignal): Promise<void> {
	let left = ms;
	for (;;) {
		signal?.throwIfAborted();
		if (left <= 0) return;
		const before = clockMs();
		await sleep(Math.min(left, WAIT_SLICE_MS), signal);
		left -= clockMs() - before;
	}
}

/** A request's turn: hand it back with `settle` once its answer is known. */
export type Turn = { pace: Pace; sentAtMs: number; settled: boolean };

/** Waits for the request's turn in order of arrival (`first`: a refused one, ahead); takes it. */
export async function takeTurn(
	key: string,
	options: { deadlineMs: number; signal?: AbortSignal; first?: boolean; ratePerMinute?: number },
): Promise<Turn> {
	prune(paces, clockMs());
	const pace = paces.get(key) ?? newPace(clockMs());
	paces.set(key, pace);
	pace.credentialRate = options.ratePerMinute;
	const ticket = pace.nextTicket++;
	if (options.first) pace.queue.unshift(ticket);
	else pace.queue.push(ticket);
	try {
		for (;;) {
			const now = clockMs();
			pace.seen.set(ticket, now);
			const ahead = pace.queue.slice(0, pace.queue.indexOf(ticket));
			const live = ahead.filter((t) => now - (pace.seen.get(t) ?? now) <= 5 * WAIT_SLICE_MS);
			const at = turnByMs(pace, live.length, now, options.deadlineMs);
			if (at <= now) {
				sent(pace, now, live.length === 0 ? dueMs(pace, now) : now);
				return { pace, sentAtMs: now, settled: false };
			}
			await wait(Math.min(at - now, WAIT_SLICE_MS), options.signal);
		}
	} finally {
		pace.queue.splice(pace.queue.indexOf(ticket), 1);
		pace.seen.delete(ticket);
	}
}

/** Gives the turn back, once, with what the answer (none: no HTTP answer) at `atMs` said. */
export function settle(turn: Turn, answer?: Omit<PaceAnswer, 'sentAtMs'>, atMs = clockMs()): void {
	if (turn.settled) return;
	turn.settled = true;
	answered(turn.pace, answer && { ...answer, sentAtMs: turn.sentAtMs }, atMs);
}
