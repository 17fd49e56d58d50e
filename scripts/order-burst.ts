/**
 * A burst of concurrent orders for the order-to-invoice example, and its checks against the
 * sandbox: used by the pacing test (through the harness), `npm run test:queue` (through real n8n
 * in queue mode) and benchmark P6.
 *
 * - `prepareBurst` picks two articles with enough stock, sets the sandbox's rate limit and
 *   returns the orders (as the shop posts them to the example's webhook).
 * - `checkBurst` reads /_sandbox/stats first (so that the checks are not counted), lifts the rate
 *   limit, then checks every order: exactly one invoice with its number in `reference_externe`,
 *   paid in full by one settlement.
 */
import { sleep } from 'n8n-workflow';
import { Agent, fetch } from 'undici';

import type { RateLimitAlgorithm } from '../sandbox/limiters';
import type { RateLimitHeaderDialect } from '../sandbox/rateLimitHeaders';
import { SCOPES } from '../sandbox/schemas';

export interface SandboxUrls {
	/** http://127.0.0.1:PORT */
	url: string;
	/** url + '/v1' */
	baseUrl: string;
}

/** An order as the shop posts it to the example's webhook. */
export interface BurstOrder {
	order_number: string;
	financial_status: 'paid';
	customer: { email: string; name: string };
	line_items: Array<{ sku: string; quantity: number }>;
}

interface WindowRecord {
	startedAt: string;
	accepted: number;
	refused: number;
}

interface Stats {
	requests: number;
	byStatus: Record<string, number>;
	byPath: Record<string, number>;
	rateLimitWindows?: WindowRecord[];
	/** Settlements recorded so far. */
	settlements?: number;
}

/**
 * The sandbox's control API (`/_sandbox/...`, sandbox/README.md): GET, or POST with `body`; throws
 * on an answer other than 2xx.
 */
export async function sandboxControl<T = unknown>(
	url: string,
	path: string,
	body?: unknown,
): Promise<T> {
	const answer = await fetch(`${url}/_sandbox/${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!answer.ok) throw new Error(`sandbox ${path}: ${answer.status} ${await answer.text()}`);
	return (await answer.json()) as T;
}

async function api(
	sandbox: SandboxUrls,
	key: string,
	route: string,
): Promise<{ data: Array<Record<string, unknown>>; pagination?: { next_cursor?: string | null } }> {
	const answer = await fetch(`${sandbox.baseUrl}${route}`, {
		headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
	});
	if (!answer.ok) throw new Error(`sandbox GET ${route}: ${answer.status} ${await answer.text()}`);
	return (await answer.json()) as never;
}

/** A fresh sandbox key with every scope (its own rate-limit bucket). */
export async function freshKey(sandbox: SandboxUrls, name: string): Promise<string> {
	const scopes = [...SCOPES];
	return ((await sandboxControl(sandbox.url, 'keys', { scopes, name })) as { key: string }).key;
}

export interface BurstPlan {
	orders: BurstOrder[];
	limit: number;
	windowSeconds: number;
	/** A key of its own for the checks. */
	checkKey: string;
}

/**
 * Picks two articles with stock for every order, sets the rate limit (which restarts the
 * sandbox's windows and counters of the limit) and makes `count` orders numbered `<tag>-0001`...
 */
export async function prepareBurst(
	sandbox: SandboxUrls,
	options: {
		count: number;
		tag: string;
		limit: number;
		windowSeconds: number;
		/** The header dialect the sandbox reports the limit in (default: ietf-fields). */
		headers?: RateLimitHeaderDialect;
		/** The sandbox's limiter (default: its fixed window) and a token bucket's size. */
		algorithm?: RateLimitAlgorithm;
		burst?: number;
	},
): Promise<BurstPlan> {
	const checkKey = await freshKey(sandbox, `burst checks ${options.tag}`);
	await sandboxControl(sandbox.url, 'config', { rateLimit: false });
	const articles = (await api(sandbox, checkKey, '/articles?limit=100')).data.filter(
		(a) => Number(a.stock) >= options.count * 2 && Number(a.seuil_alerte) === 0,
	);
	if (articles.length < 2) throw new Error('the sandbox has no two articles with enough stock');
	const [a, b] = articles;
	const orders: BurstOrder[] = Array.from({ length: options.count }, (_, i) => {
		const number = `${options.tag}-${String(i + 1).padStart(4, '0')}`;
		return {
			order_number: number,
			financial_status: 'paid',
			customer: { email: `${number.toLowerCase()}@shop.example`, name: `Customer ${number}` },
			// SKUs that are not in the example's table are used as article references as they are.
			line_items: [
				{ sku: String(a.reference), quantity: 1 },
				{ sku: String(b.reference), quantity: 2 },
			],
		};
	});
	await sandboxControl(sandbox.url, 'config', {
		rateLimit: {
			limit: options.limit,
			windowSeconds: options.windowSeconds,
			algorithm: options.algorithm,
			burst: options.burst,
		},
		rateLimitHeaders: options.headers ?? 'ietf-fields',
	});
	return { orders, limit: options.limit, windowSeconds: options.windowSeconds, checkKey };
}

export interface BurstReport {
	orders: number;
	/** API requests during the burst (429s included). */
	requests: number;
	/** Answered 429. */
	refused: number;
	refusedShare: number;
	/** Accepted (not 429) requests per order. */
	requestsPerOrder: number;
	/** Orders with exactly one invoice, paid in full. */
	settled: number;
	/** Invoices beyond the first for an order. */
	duplicate: number;
	/** Orders without an invoice. */
	missing: number;
	/** Orders whose (single) invoice is not paid in full. */
	unpaid: number;
	/** Of the windows the burst filled (all but the last), the share of the limit used; undefined with one window. */
	ceilingUse?: number;
	windows: WindowRecord[];
	byPath: Record<string, number>;
}

/** Reads the burst's counters, then checks every order's invoice (with the rate limit lifted). */
export async function checkBurst(
	sandbox: SandboxUrls,
	plan: BurstPlan,
	before?: Stats,
): Promise<BurstReport> {
	const after = (await sandboxControl(sandbox.url, 'stats')) as Stats;
	await sandboxControl(sandbox.url, 'config', { rateLimit: false });
	const diff = (name: string) => (after.byStatus[name] ?? 0) - (before?.byStatus[name] ?? 0);
	const requests = after.requests - (before?.requests ?? 0);
	const refused = diff('429');
	const byPath: Record<string, number> = {};
	for (const [path, n] of Object.entries(after.byPath)) {
		const d = n - (before?.byPath[path] ?? 0);
		if (d > 0) byPath[path] = d;
	}
	const windows = (after.rateLimitWindows ?? []).filter((w) => w.accepted + w.refused > 0);
	const full = windows.slice(0, -1);
	const ceilingUse =
		full.length === 0
			? undefined
			: full.reduce((sum, w) => sum + w.accepted, 0) / (full.length * plan.limit);

	let settled = 0;
	let duplicate = 0;
	let missing = 0;
	let unpaid = 0;
	for (const order of plan.orders) {
		const invoices = (
			await api(
				sandbox,
				plan.checkKey,
				`/factures?reference_externe=${encodeURIComponent(order.order_number)}&limit=100`,
			)
		).data;
		if (invoices.length === 0) {
			missing++;
			continue;
		}
		duplicate += invoices.length - 1;
		const [invoice] = invoices;
		if (invoice.statut === 'payee' && invoice.reste_a_payer === 0 && invoices.length === 1)
			settled++;
		else if (invoice.statut !== 'payee' || invoice.reste_a_payer !== 0) unpaid++;
	}
	return {
		orders: plan.orders.length,
		requests,
		refused,
		refusedShare: requests === 0 ? 0 : refused / requests,
		requestsPerOrder: (requests - refused) / plan.orders.length,
		settled,
		duplicate,
		missing,
		unpaid,
		ceilingUse,
		windows,
		byPath,
	};
}

/** A shop resends an order answered 503 this many times, after its Retry-After (else 5 s). */
export const SHOP_RESENDS = 3;

/**
 * Every order of the plan POSTed at once to an n8n webhook (`webhookUrl`: the whole production
 * URL, as the shop calls it); the answers, in the plan's order. An order answered 503 is resent
 * as a shop does (SHOP_RESENDS): n8n itself answers 503 "Database is not ready!" without running
 * anything while a ping of its database times out (SQLite on a loaded machine); an execution the
 * example answered 503 stays failed, and the tests' count of failed executions sees it. Each
 * attempt may take up to `timeoutMs` (default 10 minutes); one with no answer by then (or a
 * broken connection) is status 0, as a shop sees it, with the reason in `text`.
 */
export async function postOrders(
	webhookUrl: string,
	plan: Pick<BurstPlan, 'orders'>,
	timeoutMs = 10 * 60_000,
): Promise<Array<{ status: number; text: string; resent: number }>> {
	// fetch's own header timeout (5 minutes) would end a longer wait first, as "fetch failed".
	const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
	const post = async (order: BurstOrder) => {
		try {
			const response = await fetch(webhookUrl, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(order),
				signal: AbortSignal.timeout(timeoutMs),
				dispatcher,
			});
			const retryAfter = Number(response.headers.get('retry-after'));
			return {
				status: response.status,
				text: await response.text(),
				waitMs: retryAfter > 0 ? retryAfter * 1000 : 5000,
			};
		} catch (error) {
			return { status: 0, text: (error as Error).message, waitMs: 0 };
		}
	};
	try {
		return await Promise.all(
			plan.orders.map(async (order) => {
				for (let resent = 0; ; resent++) {
					const { status, text, waitMs } = await post(order);
					if (status !== 503 || resent === SHOP_RESENDS) return { status, text, resent };
					await sleep(waitMs);
				}
			}),
		);
	} finally {
		await dispatcher.close();
	}
}

/** The sandbox's counters now (pass to checkBurst as `before` when the sandbox was used earlier). */
export async function sandboxStats(sandbox: SandboxUrls): Promise<Stats> {
	return (await sandboxControl(sandbox.url, 'stats')) as Stats;
}

/** A limiter of the sandbox at the specification's 100 per minute (a token bucket: burst 10, as nginx). */
export function specLimiter(algorithm: RateLimitAlgorithm, headers: RateLimitHeaderDialect) {
	const burst = algorithm === 'token-bucket' ? 10 : undefined;
	return { limit: 100, windowSeconds: 60, headers, algorithm, burst };
}

/** The flash sale (issue 39): this many concurrent orders, one key, against each of these limiters. */
export const FLASH_SALE_ORDERS = 30;
export const FLASH_SALE_LIMITERS: Array<{
	algorithm: RateLimitAlgorithm;
	headers: RateLimitHeaderDialect;
}> = [
	{ algorithm: 'token-bucket', headers: 'bare' },
	{ algorithm: 'sliding-window', headers: 'bare' },
	{ algorithm: 'fixed-window', headers: 'ietf-fields' },
];

/** Issue 39's target for a flash sale's 429 share: headers 2 %; a bare 429 10 % in one process, 15 % across workers. */
export function refusedShareTarget(headers: RateLimitHeaderDialect, processes: number): number {
	if (headers !== 'bare') return 0.02;
	return processes > 1 ? 0.15 : 0.1;
}

/**
 * The counters' control: 110 requests at once on a key of its own against `limiter`; how many the
 * sandbox's stats count as refused, and whether that is what the limiter says (a window refuses
 * exactly the overflow, 10; a bucket of 10 at 100 a minute refills a little meanwhile: 90 or more).
 */
export async function controlAtOnce(
	sandbox: SandboxUrls,
	limiter: ReturnType<typeof specLimiter>,
	tag: string,
): Promise<{ refused: number; asExpected: boolean }> {
	await prepareBurst(sandbox, { count: 1, tag, ...limiter });
	const key = await freshKey(sandbox, `control ${tag}`);
	const before = await sandboxStats(sandbox);
	await Promise.all(
		Array.from({ length: 110 }, async () => {
			const answer = await fetch(`${sandbox.baseUrl}/articles?limit=1`, {
				headers: { authorization: `Bearer ${key}` },
			});
			await answer.text();
		}),
	);
	const after = await sandboxStats(sandbox);
	const refused = (after.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0);
	return { refused, asExpected: limiter.burst === undefined ? refused === 10 : refused >= 90 };
}
