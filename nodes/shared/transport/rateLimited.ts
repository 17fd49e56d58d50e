// What happens on a 429, in one place.
//
// - `daily_quota_exceeded`: fails at once with the time requests are accepted again.
// - A 429 that says when to come back (Retry-After, else the window's reset in any header dialect
//   rateLimit.ts reads): the key's budget is closed until then for every request of the process
//   (pacing.ts, budget.ts), and this request waits its turn again, first in line. Waiting one's
//   turn is not a retry: no retry count runs out. The limit is time: Max Rate-Limit Wait, for the
//   whole request from its first attempt; past it, the request fails with a clear error.
// - A bare 429, that names no wait: the same, a rate limit and never a retry count. The budget has
//   closed the gate until the end it chose for the window (learned.ts), and that is the wait the
//   time limit is checked against.
import type { AttemptOutcome } from './rateLimit';
import { RESET_MARGIN_SECONDS } from './rateLimit';

export type RateLimitStep =
	/** Wait for a slot again (the budget holds it until the server's time). */
	| { action: 'turn' }
	| {
			action: 'fail';
			reason: 'dailyQuota' | 'waitCap';
			/** The wait the server asked for. */
			waitSeconds?: number;
			/** How long this request has already waited, for waitCap. */
			waitedSeconds?: number;
			/** The wait is the pack's own estimate: the server named none (a bare 429). */
			estimated?: boolean;
	  };

/** The wait a 429 asks for: Retry-After, else the window's reset (plus a margin); undefined: none said. */
export function askedWaitSeconds(outcome: AttemptOutcome): number | undefined {
	if (outcome.kind !== 'status') return undefined;
	const { info } = outcome;
	if (info.retryAfterSeconds !== undefined) return info.retryAfterSeconds;
	if (info.resetSeconds !== undefined) return info.resetSeconds + RESET_MARGIN_SECONDS;
	return undefined;
}

/**
 * The step after a 429; undefined for any other outcome. `startedAtMs`: the request's first
 * attempt; `gateSeconds`: how long the key's gate stays closed (the wait chosen for a bare 429).
 */
export function onRateLimited(
	outcome: AttemptOutcome,
	startedAtMs: number,
	maxWaitSeconds: number,
	nowMs: number,
	gateSeconds = 0,
): RateLimitStep | undefined {
	if (outcome.kind !== 'status' || outcome.status !== 429) return undefined;
	if (outcome.apiCode === 'daily_quota_exceeded') {
		return { action: 'fail', reason: 'dailyQuota', waitSeconds: outcome.info.retryAfterSeconds };
	}
	const asked = askedWaitSeconds(outcome);
	const wait = asked ?? gateSeconds;
	const waited = Math.max(0, (nowMs - startedAtMs) / 1000);
	if (wait > maxWaitSeconds || waited + wait > maxWaitSeconds) {
		const fail = { waitSeconds: wait, waitedSeconds: waited };
		if (asked !== undefined) return { action: 'fail', reason: 'waitCap', ...fail };
		return { action: 'fail', reason: 'waitCap', ...fail, estimated: true };
	}
	return { action: 'turn' };
}
