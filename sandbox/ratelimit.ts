// Fixed-window rate limit per credential and a daily quota (UTC day), with rate-limit headers in
// the configured dialect (rateLimitHeaders.ts).
import { ApiError } from './http';
import { rateLimitHeaders } from './rateLimitHeaders';
import type { RateLimitHeaderDialect } from './rateLimitHeaders';

export interface RateLimitConfig {
	rateLimit: { limit: number; windowSeconds: number } | false;
	dailyQuota: number;
	/** The header dialect answers carry (default ietf-fields). */
	rateLimitHeaders?: RateLimitHeaderDialect;
}

interface Bucket {
	windowEnd: number;
	used: number;
	day: string;
	dayUsed: number;
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
	 * Counts one request for `bucket`. A window starts at the first request after the previous one ended
	 * and lasts exactly `windowSeconds`; `RateLimit-Reset` is rounded up, so a client that waits that long
	 * always lands in a new window. Refused requests are not counted.
	 */
	take(bucketId: string, nowMs: number): { headers: Record<string, string>; error?: ApiError } {
		const { rateLimit, dailyQuota } = this.config();
		const dialect = this.config().rateLimitHeaders ?? 'ietf-fields';
		const headersOf = (limit: number, remaining: number, reset: string, windowSeconds: number) =>
			rateLimitHeaders(dialect, {
				limit,
				remaining,
				resetSeconds: Number(reset),
				windowSeconds,
				nowMs,
			});
		const day = new Date(nowMs).toISOString().slice(0, 10);
		let b = this.buckets.get(bucketId);
		if (!b) {
			b = { windowEnd: 0, used: 0, day, dayUsed: 0 };
			this.buckets.set(bucketId, b);
		}
		if (b.day !== day) {
			b.day = day;
			b.dayUsed = 0;
		}
		if (rateLimit && nowMs >= b.windowEnd) {
			b.windowEnd = nowMs + rateLimit.windowSeconds * 1000;
			b.used = 0;
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
			const wait = String(secondsUntil(nextUtcMidnight(nowMs) - nowMs));
			const headers: Record<string, string> = rateLimit
				? headersOf(rateLimit.limit, 0, wait, rateLimit.windowSeconds)
				: {};
			return {
				headers,
				error: new ApiError(
					429,
					'daily_quota_exceeded',
					`The daily quota of ${dailyQuota} requests is used up; it renews at 00:00 UTC`,
					undefined,
					{
						'Retry-After': wait,
					},
				),
			};
		}
		if (!rateLimit) {
			b.dayUsed++;
			return { headers: {} };
		}
		const reset = String(secondsUntil(b.windowEnd - nowMs));
		if (b.used >= rateLimit.limit) {
			this.record(bucketId, 'refused');
			return {
				headers: headersOf(rateLimit.limit, 0, reset, rateLimit.windowSeconds),
				error: new ApiError(
					429,
					'rate_limited',
					`Rate limit of ${rateLimit.limit} requests per ${rateLimit.windowSeconds} s exceeded`,
					undefined,
					dialect === 'bare' ? {} : { 'Retry-After': reset },
				),
			};
		}
		b.used++;
		b.dayUsed++;
		this.record(bucketId, 'accepted');
		return {
			headers: headersOf(rateLimit.limit, rateLimit.limit - b.used, reset, rateLimit.windowSeconds),
		};
	}
}
