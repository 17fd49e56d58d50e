// The rate-limit algorithms the sandbox can play, one key each, pure (the time is a parameter), so
// that the sandbox (ratelimit.ts) and the fake-time simulation (test/transport/simulate.ts) run
// the very same limiter:
//
//   fixed-window    `limit` per window of `windowSeconds`, a window starting at the first request
//                   after the previous one ended (the sandbox's limiter since the start)
//   sliding-window  at most `limit` accepted in any `windowSeconds` (a log of accepted requests)
//   token-bucket    `burst` tokens (default `limit`), refilled at `limit` per `windowSeconds`; one
//                   per request (the same as nginx's leaky bucket, `limit_req ... burst=N nodelay`)
//
// Each tells, for a request, whether it is accepted and what budget headers would report: the
// limit, what is left, when the budget is back (whole seconds, rounded up) and the policy's window.
export const RATE_LIMIT_ALGORITHMS = ['fixed-window', 'sliding-window', 'token-bucket'] as const;
export type RateLimitAlgorithm = (typeof RATE_LIMIT_ALGORITHMS)[number];

export interface LimiterConfig {
	limit: number;
	windowSeconds: number;
	/** Default fixed-window. */
	algorithm?: RateLimitAlgorithm;
	/** token-bucket only: the bucket's size (default `limit`). */
	burst?: number;
}

export interface LimiterVerdict {
	accepted: boolean;
	/** What budget headers report. */
	limit: number;
	remaining: number;
	/** Seconds until the budget is back (whole, at least 1): a refused request's Retry-After. */
	resetSeconds: number;
	/** The policy's window, in seconds (RateLimit-Policy's w). */
	windowSeconds: number;
}

export interface Limiter {
	take(nowMs: number): LimiterVerdict;
}

/**
 * A limit too high to refuse anything, reported in the headers: for tests whose subject is not the
 * rate limit. (With no limit at all the sandbox reports none, and the nodes pace the key at the
 * specification's 100 per minute, as they must for an ERP that says nothing.)
 */
export const UNPACED: LimiterConfig = { limit: 1_000_000, windowSeconds: 60 };

const wholeSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function fixedWindow({ limit, windowSeconds }: LimiterConfig): Limiter {
	let windowEnd = 0;
	let used = 0;
	return {
		take(nowMs) {
			if (nowMs >= windowEnd) {
				windowEnd = nowMs + windowSeconds * 1000;
				used = 0;
			}
			const accepted = used < limit;
			if (accepted) used++;
			const resetSeconds = wholeSeconds(windowEnd - nowMs);
			return { accepted, limit, remaining: limit - used, resetSeconds, windowSeconds };
		},
	};
}

function slidingWindow({ limit, windowSeconds }: LimiterConfig): Limiter {
	const windowMs = windowSeconds * 1000;
	const log: number[] = [];
	return {
		take(nowMs) {
			while (log.length > 0 && log[0] <= nowMs - windowMs) log.shift();
			const accepted = log.length < limit;
			if (accepted) log.push(nowMs);
			// Back when the oldest accepted request leaves the window.
			const resetSeconds = wholeSeconds((log[0] ?? nowMs) + windowMs - nowMs);
			return { accepted, limit, remaining: limit - log.length, resetSeconds, windowSeconds };
		},
	};
}

function tokenBucket({ limit, windowSeconds, burst }: LimiterConfig): Limiter {
	const size = burst ?? limit;
	const perMs = limit / (windowSeconds * 1000);
	let tokens = size;
	let lastMs: number | undefined;
	return {
		take(nowMs) {
			tokens = Math.min(size, tokens + (nowMs - (lastMs ?? nowMs)) * perMs);
			lastMs = nowMs;
			const accepted = tokens >= 1;
			if (accepted) tokens -= 1;
			// The bucket's budget: its size, the whole tokens in it, until it is full again; a refused
			// request is told when the next token comes.
			const resetMs = accepted ? (size - tokens) / perMs : (1 - tokens) / perMs;
			return {
				accepted,
				limit: size,
				remaining: Math.floor(tokens),
				resetSeconds: wholeSeconds(resetMs),
				windowSeconds: Math.max(1, Math.round(size / perMs / 1000)),
			};
		},
	};
}

export function newLimiter(config: LimiterConfig): Limiter {
	switch (config.algorithm ?? 'fixed-window') {
		case 'fixed-window':
			return fixedWindow(config);
		case 'sliding-window':
			return slidingWindow(config);
		case 'token-bucket':
			return tokenBucket(config);
	}
}
