// What an answer's headers say about the rate limit, in any dialect a server or its gateway speaks,
// read into one budget (limit per window, requests left, seconds to the reset). The first dialect
// present and readable wins; unreadable values are ignored, never a crash or a wait of years.
//   ietf-fields  RateLimit-Limit: 30, RateLimit-Remaining: 29, RateLimit-Reset: 10 (early drafts)
//   draft7       RateLimit: limit=30, remaining=29, reset=10 + RateLimit-Policy: 30;w=10
//   structured   RateLimit: "30-in-10sec";r=29;t=10 + RateLimit-Policy: "30-in-10sec";q=30;w=10
//                (later drafts; with several policies, the one with the fewest left governs)
//   x-ratelimit  X-RateLimit-* or X-Rate-Limit-*, Reset in delta seconds, Unix seconds or Unix
//                milliseconds (told apart by size, against the answer's Date, else the clock)
// Retry-After (delta seconds or HTTP date) is read beside them. Pure: the time is a parameter.
export type Headers = Record<string, unknown>;

type DialectName = 'ietf-fields' | 'draft7' | 'structured' | 'x-ratelimit';

/** What one dialect says about the current window (`resetSeconds`: until it resets). */
export interface BudgetReading {
	limit?: number;
	remaining?: number;
	resetSeconds?: number;
	dialect?: DialectName;
}

/** A reset more than a day away is not a rate-limit window: it is never waited for. */
export const MAX_RESET_SECONDS = 86_400;
/** From these sizes a Reset is a Unix time (2001 onwards) in milliseconds, or in seconds. */
const EPOCH_MS_FROM = 1e12;
const EPOCH_SECONDS_FROM = 1e9;

/** A header's value (case-insensitive name; the first of several), trimmed. */
export function header(headers: Headers | undefined, name: string): string | undefined {
	const key = Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name.toLowerCase());
	const value = key === undefined ? undefined : headers![key];
	const first = Array.isArray(value) ? value[0] : value;
	return first === undefined || first === null ? undefined : String(first).trim();
}

function nonNegativeNumber(value: string | undefined): number | undefined {
	if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) return undefined;
	const n = Number(value);
	return Number.isFinite(n) ? n : undefined;
}

/** The leading number of a field such as `30, 30;w=10` (early drafts' RateLimit-Limit). */
function leadingNumber(value: string | undefined): number | undefined {
	return nonNegativeNumber(value?.split(/[,;]/, 1)[0]?.trim());
}

/** Seconds to a Reset: delta or Unix s/ms against `referenceMs`; past: 0; too far: undefined. */
export function resetSecondsOf(raw: number | undefined, referenceMs: number): number | undefined {
	if (raw === undefined) return undefined;
	let seconds = raw;
	if (raw >= EPOCH_MS_FROM) seconds = (raw - referenceMs) / 1000;
	else if (raw >= EPOCH_SECONDS_FROM) seconds = raw - referenceMs / 1000;
	seconds = Math.max(0, seconds);
	return seconds > MAX_RESET_SECONDS ? undefined : seconds;
}

/** `a=1, b=2` into its numbers (unreadable ones undefined). */
function keyValues(parts: string[]): Map<string, number | undefined> {
	const out = new Map<string, number | undefined>();
	for (const part of parts) {
		const [key, raw] = part.split('=', 2).map((s) => s?.trim());
		if (key) out.set(key.toLowerCase(), nonNegativeNumber(raw));
	}
	return out;
}

/** A structured-field list: `"name";k=v;k=v, token;k=v` into items with their parameters. */
function sfList(value: string): Array<{ name: string; params: Map<string, number | undefined> }> {
	const items: Array<{ name: string; params: Map<string, number | undefined> }> = [];
	for (const item of value.match(/("[^"]*"|[^,])+/g) ?? []) {
		const [name, ...params] = (item.match(/("[^"]*"|[^;])+/g) ?? []).map((s) => s.trim());
		// A quoted string or a token, else the item is not readable.
		if (name === undefined || !/^("[^"]*"|[A-Za-z*][\w!#$%&'*+.^`|~:/-]*)$/.test(name)) continue;
		items.push({ name: name.replace(/^"|"$/g, ''), params: keyValues(params) });
	}
	return items;
}

/** An X-RateLimit-* field, or its X-Rate-Limit-* spelling. */
const xField = (headers: Headers, name: string) =>
	header(headers, `x-ratelimit-${name}`) ?? header(headers, `x-rate-limit-${name}`);

/** A budget in separate Limit, Remaining and Reset fields (`field` reads one by name). */
const readFields = (field: (name: string) => string | undefined, referenceMs: number) => ({
	limit: leadingNumber(field('limit')),
	remaining: nonNegativeNumber(field('remaining')),
	resetSeconds: resetSecondsOf(nonNegativeNumber(field('reset')), referenceMs),
});

/** The dialects, in the order they are tried: what shows each is present, and its reader. */
export const DIALECTS: ReadonlyArray<{
	name: DialectName;
	present: (headers: Headers) => boolean;
	read: (headers: Headers, nowMs: number) => BudgetReading;
}> = [
	{
		name: 'structured',
		present: (h) => /^\s*("|[a-z*][^=,]*;)/i.test(header(h, 'ratelimit') ?? ''),
		read: (h, nowMs) => {
			const policies = new Map(
				sfList(header(h, 'ratelimit-policy') ?? '').map((p) => [p.name, p.params]),
			);
			let tightest: BudgetReading | undefined;
			for (const { name, params } of sfList(header(h, 'ratelimit') ?? '')) {
				const policy = policies.get(name);
				const remaining = params.get('r');
				// Without t the window is the policy's whole w (the most it can be).
				const resetSeconds = resetSecondsOf(params.get('t') ?? policy?.get('w'), nowMs);
				if (remaining === undefined || resetSeconds === undefined) continue;
				const reading = { limit: policy?.get('q'), remaining, resetSeconds };
				const fewer = tightest?.remaining === undefined || remaining < tightest.remaining;
				const same = tightest?.remaining === remaining;
				if (fewer || (same && resetSeconds > (tightest?.resetSeconds ?? 0))) tightest = reading;
			}
			return tightest ?? {};
		},
	},
	{
		name: 'draft7',
		present: (h) => header(h, 'ratelimit') !== undefined,
		read: (h, nowMs) => {
			const fields = keyValues((header(h, 'ratelimit') ?? '').split(/[,;]/));
			return {
				limit: fields.get('limit') ?? leadingNumber(header(h, 'ratelimit-policy')),
				remaining: fields.get('remaining'),
				resetSeconds: resetSecondsOf(fields.get('reset'), nowMs),
			};
		},
	},
	{
		name: 'ietf-fields',
		present: (h) => header(h, 'ratelimit-remaining') !== undefined,
		read: (h, nowMs) => readFields((name) => header(h, `ratelimit-${name}`), nowMs),
	},
	{
		name: 'x-ratelimit',
		present: (h) => xField(h, 'remaining') !== undefined,
		read: (h, nowMs) => {
			const dated = Date.parse(header(h, 'date') ?? '');
			return readFields((name) => xField(h, name), Number.isNaN(dated) ? nowMs : dated);
		},
	},
];

/** The budget: the first dialect present with both remaining and reset, else the first present. */
export function readBudget(headers: Headers | undefined, nowMs: number): BudgetReading {
	if (!headers) return {};
	let partial: BudgetReading | undefined;
	for (const dialect of DIALECTS) {
		if (!dialect.present(headers)) continue;
		const reading = dialect.read(headers, nowMs);
		if (reading.remaining !== undefined && reading.resetSeconds !== undefined) {
			return { ...reading, dialect: dialect.name };
		}
		partial ??= { ...reading, dialect: dialect.name };
	}
	return partial ?? {};
}

/** `Retry-After` in seconds from now (delta-seconds or HTTP date); undefined if absent or bad. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined || value === '') return undefined;
	const seconds = nonNegativeNumber(value);
	if (seconds !== undefined) return seconds;
	if (!/^[A-Za-z]/.test(value)) return undefined; // an HTTP date starts with the day name
	const dateMs = Date.parse(value);
	if (Number.isNaN(dateMs)) return undefined;
	return Math.max(0, (dateMs - nowMs) / 1000);
}

/** What one answer's headers say: the budget, its dialect (if any), `Retry-After` in seconds. */
export type RateLimitInfo = BudgetReading & { retryAfterSeconds?: number };

/** The one reader of rate-limit headers, for every request. */
export function readRateLimitHeaders(headers: Headers | undefined, nowMs: number): RateLimitInfo {
	const { limit, remaining, resetSeconds, dialect } = readBudget(headers, nowMs);
	const retryAfterSeconds = parseRetryAfter(header(headers, 'retry-after'), nowMs);
	return { limit, remaining, resetSeconds, retryAfterSeconds, dialect };
}
