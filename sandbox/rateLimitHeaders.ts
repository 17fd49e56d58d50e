// The rate-limit header dialect the sandbox speaks (option `rateLimitHeaders`), so that tests and
// benchmarks can run against each limiter a real ERP may sit behind. Retry-After on a 429 is sent
// in every dialect (ratelimit.ts) but `bare`; `none` sends nothing else; `bare` sends nothing at
// all, a bare 429 (the specification's literal "Exceeding it gives 429", nginx limit_req).
export const RATE_LIMIT_HEADER_DIALECTS = [
	'ietf-fields',
	'draft7',
	'structured',
	'x-ratelimit',
	'none',
	'bare',
] as const;
export type RateLimitHeaderDialect = (typeof RATE_LIMIT_HEADER_DIALECTS)[number];

/** The window's state, as every dialect reports it. */
export interface WindowState {
	limit: number;
	remaining: number;
	/** Whole seconds until the window resets, rounded up. */
	resetSeconds: number;
	windowSeconds: number;
	nowMs: number;
}

export function rateLimitHeaders(
	dialect: RateLimitHeaderDialect,
	w: WindowState,
): Record<string, string> {
	switch (dialect) {
		case 'ietf-fields':
			return {
				'RateLimit-Limit': String(w.limit),
				'RateLimit-Remaining': String(w.remaining),
				'RateLimit-Reset': String(w.resetSeconds),
			};
		case 'draft7':
			return {
				RateLimit: `limit=${w.limit}, remaining=${w.remaining}, reset=${w.resetSeconds}`,
				'RateLimit-Policy': `${w.limit};w=${w.windowSeconds}`,
			};
		case 'structured': {
			const policy = `"${w.limit}-in-${w.windowSeconds}sec"`;
			return {
				RateLimit: `${policy};r=${w.remaining};t=${w.resetSeconds}`,
				'RateLimit-Policy': `${policy};q=${w.limit};w=${w.windowSeconds}`,
			};
		}
		case 'x-ratelimit':
			// Reset as a Unix time in seconds, as GitHub and many APIs send it (with the Date header).
			return {
				'X-RateLimit-Limit': String(w.limit),
				'X-RateLimit-Remaining': String(w.remaining),
				'X-RateLimit-Reset': String(Math.ceil(w.nowMs / 1000) + w.resetSeconds),
			};
		case 'none':
		case 'bare':
			return {};
	}
}
