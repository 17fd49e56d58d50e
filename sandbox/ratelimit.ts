// The rate limit per credential, in the configured algorithm (limiters.ts: fixed window by
// default, sliding window, token bucket), and a daily quota (UTC day), with rate-limit headers in
// the configured dialect (rateLimitHeaders.ts).
import { ApiError } from './http';
import { newLimiter } from './limiters';
import type { Limiter, LimiterConfig } from './limiters';
import { rateLimitHeaders } from './rateLimitHeaders';
import type { RateLimitHeaderDialect } from './rateLimitHeaders';

export interface RateLimitConfig {
	rateLimit: LimiterConfig | false;
	dailyQuota: number;
	/** The header dialect answers carry (default ietf-fields). */
	rateLimitHeaders?: RateLimitHeaderDialect;
}

interface Bucket {
	/** The end of the current window of the stats. */
	windowEnd: number;
	day: string;
	dayUsed: number;
	limiter?: Limiter;
}

/** One rate-limit window of one credential: requests accepted and refused in it. */
export interface WindowRecord {
	startedAt: string;
	accepted: number;
	refused: number;
}

/** Windows kept in the history (the oldest are dropped first). */
const MAX_WINDOWS = 1000;

const secondsUntil = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const nextUtcMidnight = (nowMs: number) => {
	const d = new Date(nowMs);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
};

export class RateLimiter {
	private buckets = new Map<string, Bucket>();
	/** Ended windows, oldest first, and the current window of each bucket (`windows()`). */
	private ended: WindowRecord[] = [];
	private current = new Map<string, WindowRecord>();

	constructor(private readonly config: () => RateLimitConfig) {}

	reset(): void {
		this.buckets.clear();
		this.ended = [];
		this.current.clear();
	}

	/** Every window seen since the last reset, in the order they started (for /_sandbox/stats). */
	windows(): WindowRecord[] {
		return [...this.ended, ...this.current.values()]
			.sort((a, b) => a.startedAt.localeCompare(b.startedAt))
			.map((w) => ({ ...w }));
	}

	private record(bucketId: string, field: 'accepted' | 'refused'): void {
		const window = this.current.get(bucketId);
		if (window) window[field]++;
	}

	/**
	 * Counts one request for `bucket` with the configured algorithm (limiters.ts); refused requests
	 * are not counted. The stats' windows are `windowSeconds` long, each starting at the first
	 * request after the previous one ended, whatever the algorithm.
	 */
	take(bucketId: string, nowMs: number): { headers: Record<string, string>; error?: ApiError } {
		const { rateLimit, dailyQuota } = this.config();
		const dialect = this.config().rateLimitHeaders ?? 'ietf-fields';
		const day = new Date(nowMs).toISOString().slice(0, 10);
		let b = this.buckets.get(bucketId);
		if (!b) {
			b = { windowEnd: 0, day, dayUsed: 0, limiter: rateLimit ? newLimiter(rateLimit) : undefined };
			this.buckets.set(bucketId, b);
		}
		if (b.day !== day) {
			b.day = day;
			b.dayUsed = 0;
		}
		if (rateLimit && nowMs >= b.windowEnd) {
			b.windowEnd = nowMs + rateLimit.windowSeconds * 1000;
			const previous = this.current.get(bucketId);
			if (previous) this.ended.push(previous);
			if (this.ended.length > MAX_WINDOWS) this.ended.shift();
			this.current.set(bucketId, {
				startedAt: new Date(nowMs).toISOString(),
				accepted: 0,
				refused: 0,
			});
		}
		if (b.dayUsed >= dailyQuota) {
			const wait = secondsUntil(nextUtcMidnight(nowMs) - nowMs);
			const headers: Record<string, string> = rateLimit
				? rateLimitHeaders(dialect, {
						limit: rateLimit.limit,
						remaining: 0,
						resetSeconds: wait,
						windowSeconds: rateLimit.windowSeconds,
						nowMs,
					})
				: {};
			return {
				headers,
				error: new ApiError(
					429,
					'daily_quota_exceeded',
					`The daily quota of ${dailyQuota} requests is used up; it renews at 00:00 UTC`,
					undefined,
					{
						'Retry-After': String(wait),
					},
				),
			};
		}
		if (!rateLimit || !b.limiter) {
			b.dayUsed++;
			return { headers: {} };
		}
		const verdict = b.limiter.take(nowMs);
		const headers = rateLimitHeaders(dialect, { ...verdict, nowMs });
		if (!verdict.accepted) {
			this.record(bucketId, 'refused');
			return {
				headers,
				error: new ApiError(
					429,
					'rate_limited',
					`Rate limit of ${rateLimit.limit} requests per ${rateLimit.windowSeconds} s exceeded`,
					undefined,
					dialect === 'bare' ? {} : { 'Retry-After': String(verdict.resetSeconds) },
				),
			};
		}
		b.dayUsed++;
		this.record(bucketId, 'accepted');
		return { headers };
	}
}
