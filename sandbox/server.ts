/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// The request pipeline: /v1 (auth, rate limit, faults, idempotency, routes), /oauth and /_sandbox.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, KeyRegistry, requireScopes } from './auth';
import { beyondSpecRoutes, recordAudit } from './beyondSpec';
import { businessRoutes, seedInvoices, type Emit } from './business';
import type { Ctx } from './context';
import {
	DEFAULT_SANDBOX_CONVENTIONS,
	ownQueryError,
	shapeListBody,
	translateQuery,
	type SandboxConventions,
} from './conventions';
import { controlRouter } from './control';
import { Faults } from './faults';
import { ApiError, errorReply, json, parseJson, readRawBody, type Reply, Router } from './http';
import { IdempotencyStore } from './idempotency';
import { DEFAULT_TOKEN_LIFETIMES, OAuthServer, type TokenLifetimes } from './oauth';
import type { LimiterConfig } from './limiters';
import { RateLimiter } from './ratelimit';
import type { RateLimitHeaderDialect } from './rateLimitHeaders';
import type { ControlConfig } from './schemas';
import { Stats } from './stats';
import { seedBulletins, seedStore, Store } from './store';
import {
	DEFAULT_WEBHOOK_RETRY,
	webhookRoutes,
	WebhookService,
	type WebhookRetry,
} from './webhooks';

export interface SandboxOptions {
	port?: number;
	host?: string;
	articles?: number;
	seed?: number;
	rateLimit?: LimiterConfig | false;
	dailyQuota?: number;
	quiet?: boolean;
	tokenLifetimes?: Partial<TokenLifetimes>;
	webhookRetry?: Partial<WebhookRetry>;
	/** Largest `limit` a list accepts (default 100); above it: 400 "limit must be between 1 and N". */
	maxPageSize?: number;
	/** The rate-limit header dialect answers carry (default ietf-fields; `none`: Retry-After only; `bare`: nothing). */
	rateLimitHeaders?: RateLimitHeaderDialect;
	/** Names and shapes this server uses instead of the contract's (conventions.ts). */
	conventions?: Partial<SandboxConventions>;
	/** `ignore`: an ERP that never reads Idempotency-Key (every POST is new); default `keep`. */
	idempotencyKeys?: IdempotencyKeys;
	/** `ignore`: an ERP whose lists read only the page size and the cursor; default `apply`. */
	listFilters?: ListFilters;
}

/** What the server does with Idempotency-Key: keep the first answer per key (the contract), or ignore it. */
export type IdempotencyKeys = 'keep' | 'ignore';
/** What the lists do with their filters: apply them (the contract), or ignore them (whole lists). */
export type ListFilters = 'apply' | 'ignore';

export interface SandboxConfig {
	rateLimit: LimiterConfig | false;
	dailyQuota: number;
	tokenLifetimes: TokenLifetimes;
	webhookRetry: WebhookRetry;
	maxPageSize: number;
	rateLimitHeaders: RateLimitHeaderDialect;
	conventions: SandboxConventions;
	idempotencyKeys: IdempotencyKeys;
	listFilters: ListFilters;
}

const INJECTED_CODES: Record<number, string> = {
	429: 'rate_limited',
	500: 'internal_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
	504: 'gateway_timeout',
};

export class App {
	config!: SandboxConfig;
	store!: Store;
	readonly stats = new Stats();
	readonly keys = new KeyRegistry();
	readonly faults = new Faults();
	readonly idempotency = new IdempotencyStore();
	readonly limiter = new RateLimiter(() => this.config);
	readonly oauth = new OAuthServer(() => this.config.tokenLifetimes);
	readonly webhooks = new WebhookService(
		() => this.config.webhookRetry,
		this.stats,
		() => this.config.conventions,
	);
	private readonly v1 = new Router<Ctx>();
	private readonly control = controlRouter();
	private readonly sleeping = new Set<NodeJS.Timeout>();
	private seed: number;
	private articleCount: number;

	constructor(private readonly options: SandboxOptions) {
		this.seed = options.seed ?? 1;
		this.articleCount = options.articles ?? 250;
		businessRoutes(this.v1);
		beyondSpecRoutes(this.v1);
		webhookRoutes(this.v1);
		this.reset();
	}

	readonly emit: Emit = (type, data) => {
		this.webhooks.emit(type, data, new Date());
	};

	/** Re-seeds and forgets everything changed since start: config, faults, stats, keys, webhooks, idempotency. */
	reset(overrides: { seed?: number; articles?: number } = {}): void {
		this.seed = overrides.seed ?? this.options.seed ?? 1;
		this.articleCount = overrides.articles ?? this.options.articles ?? 250;
		const o = this.options;
		this.config = {
			rateLimit: o.rateLimit === undefined ? { limit: 100, windowSeconds: 60 } : o.rateLimit,
			dailyQuota: o.dailyQuota ?? 100000,
			tokenLifetimes: { ...DEFAULT_TOKEN_LIFETIMES, ...o.tokenLifetimes },
			webhookRetry: { ...DEFAULT_WEBHOOK_RETRY, ...o.webhookRetry },
			maxPageSize: o.maxPageSize ?? 100,
			rateLimitHeaders: o.rateLimitHeaders ?? 'ietf-fields',
			conventions: { ...DEFAULT_SANDBOX_CONVENTIONS, ...o.conventions },
			idempotencyKeys: o.idempotencyKeys ?? 'keep',
			listFilters: o.listFilters ?? 'apply',
		};
		this.store = new Store();
		seedStore(this.store, this.seed, this.articleCount);
		seedInvoices(this.store);
		seedBulletins(this.store);
		this.stats.reset();
		this.keys.reset();
		this.faults.set([]);
		this.idempotency.reset();
		this.limiter.reset();
		this.webhooks.reset();
	}

	/** Partial update; a change of rateLimit or dailyQuota restarts the counters. */
	configure(input: ControlConfig): SandboxConfig {
		const c = this.config;
		if (input.rateLimit !== undefined) c.rateLimit = input.rateLimit;
		if (input.dailyQuota !== undefined) c.dailyQuota = input.dailyQuota;
		if (input.maxPageSize !== undefined) c.maxPageSize = input.maxPageSize;
		if (input.rateLimitHeaders !== undefined) c.rateLimitHeaders = input.rateLimitHeaders;
		if (input.idempotencyKeys !== undefined) c.idempotencyKeys = input.idempotencyKeys;
		if (input.listFilters !== undefined) c.listFilters = input.listFilters;
		if (input.rateLimit !== undefined || input.dailyQuota !== undefined) this.limiter.reset();
		Object.assign(c.tokenLifetimes, input.tokenLifetimes);
		Object.assign(c.webhookRetry, input.webhookRetry);
		Object.assign(c.conventions, input.conventions);
		return c;
	}

	statsSnapshot() {
		const s = this.stats;
		return {
			requests: s.requests,
			byStatus: s.byStatus,
			byPath: s.byPath,
			faults: s.faults,
			articles: this.store.articles.size,
			invoices: this.store.factures.size,
			settlements: this.store.reglements.size,
			events: this.webhooks.events.length,
			webhookDeliveries: s.webhookDeliveries,
			rateLimitWindows: this.limiter.windows(),
		};
	}

	close(): void {
		for (const t of this.sleeping) clearTimeout(t);
		this.sleeping.clear();
		this.webhooks.close();
	}

	/** Requests held by a `barrier` fault, per fault, until `parties` of them are waiting. */
	private readonly held = new Map<object, Array<() => void>>();

	/** Holds this request until `parties` requests wait at the fault (or `timeoutMs`), then lets all go. */
	private async barrier(fault: { parties: number; timeoutMs: number }): Promise<void> {
		const waiting = this.held.get(fault) ?? [];
		this.held.set(fault, waiting);
		const released = new Promise<void>((resolve) => waiting.push(resolve));
		if (waiting.length >= fault.parties) {
			this.held.delete(fault);
			for (const release of waiting) release();
		}
		await Promise.race([released, this.sleep(fault.timeoutMs)]);
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const t = setTimeout(() => {
				this.sleeping.delete(t);
				resolve();
			}, ms);
			this.sleeping.add(t);
		});
	}

	async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const started = Date.now();
		const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
		const method = req.method ?? 'GET';
		const path = url.pathname;
		const counted = path === '/v1' || path.startsWith('/v1/') || path.startsWith('/oauth/');
		// The query as sent, for the request log (a handler may read it differently).
		const query = Object.fromEntries(url.searchParams);
		if (counted) this.stats.countRequest(method, path);
		let reply: Reply | undefined;
		try {
			if (path.startsWith('/_sandbox/'))
				reply = await this.handleControl(req, method, path, url.searchParams);
			else if (path.startsWith('/oauth/'))
				reply = await this.handleOAuth(req, method, path, url.searchParams);
			else if (counted) reply = await this.handleV1(req, res, method, path, url.searchParams);
			else if (path === '/')
				reply = json(200, {
					name: 'ERP sandbox',
					endpoints: ['/v1', '/oauth/authorize', '/oauth/token', '/_sandbox/stats'],
				});
			else reply = errorReply(new ApiError(404, 'not_found', `No endpoint ${method} ${path}`));
		} catch (e) {
			reply = this.replyFor(e);
		}
		if (!reply) return; // answered or destroyed already
		if (counted) {
			this.stats.countStatus(reply.status);
			this.stats.logRequest(method, path, query, reply.status);
		}
		send(res, reply);
		if (!this.options.quiet)
			process.stdout.write(`${method} ${req.url} ${reply.status} ${Date.now() - started}ms\n`);
	}

	/** An ApiError as its answer; anything else is a 500 `internal_error` (logged unless quiet). */
	private replyFor(e: unknown): Reply {
		if (e instanceof ApiError) return errorReply(e);
		if (!this.options.quiet) process.stderr.write(`${String((e as Error)?.stack ?? e)}\n`);
		return errorReply(new ApiError(500, 'internal_error', 'Internal sandbox error'));
	}

	private async handleControl(
		req: IncomingMessage,
		method: string,
		path: string,
		qs: URLSearchParams,
	): Promise<Reply> {
		const { route, params } = this.control.match(method, path);
		const raw = await readRawBody(req);
		return route.handler({ app: this, qs, body: () => parseJson(raw) }, params);
	}

	private async handleOAuth(
		req: IncomingMessage,
		method: string,
		path: string,
		qs: URLSearchParams,
	): Promise<Reply> {
		if (path === '/oauth/authorize' && method === 'GET')
			return this.oauth.authorize(qs, Date.now());
		if (path === '/oauth/token' && method === 'POST')
			return this.oauth.token(req.headers, await readRawBody(req), Date.now());
		throw new ApiError(404, 'not_found', `No endpoint ${method} ${path}`);
	}

	/** Returns undefined when the answer was already written (badBody) or the socket destroyed (reset). */
	private async handleV1(
		req: IncomingMessage,
		res: ServerResponse,
		method: string,
		path: string,
		qs: URLSearchParams,
	): Promise<Reply | undefined> {
		const nowMs = Date.now();
		const credential = authenticate(
			req.headers.authorization,
			this.keys,
			(t) => this.oauth.lookup(t),
			nowMs,
		);
		const bucket =
			credential instanceof ApiError ? `ip:${req.socket.remoteAddress}` : credential.bucket;
		const limit = this.limiter.take(bucket, nowMs);
		// Every answered /v1 request goes to the audit journal (GET /audit/journal) on its way out.
		const withLimits = (r: Reply): Reply => {
			recordAudit(this.store, {
				date: new Date(nowMs).toISOString(),
				acteur_type:
					credential instanceof ApiError
						? null
						: credential.kind === 'apiKey'
							? 'api_key'
							: 'oauth',
				acteur: credential instanceof ApiError ? null : credential.actor,
				methode: method,
				endpoint: path,
				statut_http: r.status,
				ip: req.socket.remoteAddress ?? '',
				latence_ms: Date.now() - nowMs,
			});
			return { ...r, headers: { ...limit.headers, ...r.headers } };
		};
		if (limit.error) return withLimits(errorReply(limit.error));
		if (credential instanceof ApiError) return withLimits(errorReply(credential));

		const fault = this.faults.pick(method, path);
		if (fault) this.stats.countFault(fault.kind);
		if (fault?.kind === 'reset') {
			req.socket.destroy();
			return undefined;
		}
		if (fault?.kind === 'slow') await this.sleep(fault.ms);
		if (fault?.kind === 'barrier') await this.barrier(fault);
		if (fault?.kind === 'status') return withLimits(injected(fault.status));
		if (fault?.kind === 'badBody') {
			this.stats.countStatus(200);
			this.stats.logRequest(method, path, Object.fromEntries(qs), 200);
			res.writeHead(200, { 'Content-Type': 'application/json', ...limit.headers });
			res.end('{"data":[{"id":"art_0000');
			return undefined;
		}

		let reply: Reply;
		try {
			const raw = await readRawBody(req);
			const { route, params } = this.v1.match(method, path);
			const kept = method === 'POST' && this.config.idempotencyKeys === 'keep';
			const idemKey = kept ? req.headers['idempotency-key'] : undefined;
			const key = typeof idemKey === 'string' && idemKey !== '' ? idemKey : undefined;
			const fingerprint = IdempotencyStore.fingerprint(method, path, raw);
			const replay = key ? this.idempotency.lookup(bucket, key, fingerprint, nowMs) : undefined;
			if (replay) return withLimits(replay);
			const ctx: Ctx = {
				method,
				path,
				qs,
				headers: req.headers,
				store: this.store,
				webhooks: this.webhooks,
				body: () => parseJson(raw),
				requireScope: (...scopes) => requireScopes(credential, scopes),
				emit: this.emit,
				now: () => new Date(),
			};
			try {
				const { conventions } = this.config;
				translateQuery(qs, conventions);
				if (method === 'GET' && this.config.listFilters === 'ignore') onlyPaging(qs);
				if (method === 'GET') checkPageSize(qs, this.config.maxPageSize, conventions.pageSizeParam);
				reply = await route.handler(ctx, params);
				if (method === 'GET' && reply.status === 200)
					reply = { ...reply, body: shapeListBody(reply.body, conventions) };
			} catch (e) {
				reply = this.replyFor(ownQueryError(e, this.config.conventions));
			}
			if (key) this.idempotency.save(bucket, key, fingerprint, reply, nowMs);
		} catch (e) {
			reply = this.replyFor(e);
		}
		if (fault?.kind === 'failAfterCommit' && reply.status < 300)
			return withLimits(injected(fault.status));
		return withLimits(reply);
	}
}

/**
 * A server that allows smaller pages than the contract's 100 (config `maxPageSize`), as the spec
 * permits: any other `limit` is refused with 400 `invalid_query`, and without `limit` the default
 * page (20) is no larger than the maximum. With the default maximum, the lists check `limit` alone.
 * `name` is the page size parameter as this server names it (conventions.ts).
 */
function checkPageSize(qs: URLSearchParams, max: number, name: string): void {
	if (max >= 100) return;
	const raw = qs.get('limit');
	if (raw === null || raw === '') {
		if (max < 20) qs.set('limit', String(max));
		return;
	}
	if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
		const message = `${name} must be between 1 and ${max}`;
		throw new ApiError(400, 'invalid_query', message, [{ field: name, message }]);
	}
}

/** An ERP that ignores list filters: every query parameter but `limit` and `cursor` dropped. */
function onlyPaging(qs: URLSearchParams): void {
	for (const name of [...qs.keys()]) if (name !== 'limit' && name !== 'cursor') qs.delete(name);
}

function injected(status: number): Reply {
	const code = INJECTED_CODES[status] ?? 'injected_fault';
	return errorReply(
		new ApiError(
			status,
			code,
			`Injected fault: HTTP ${status} (sandbox)`,
			undefined,
			status === 429 ? { 'Retry-After': '1' } : {},
		),
	);
}

function send(res: ServerResponse, reply: Reply): void {
	const headers: Record<string, string> = { ...reply.headers };
	if (reply.status === 204 || reply.body === undefined) {
		res.writeHead(reply.status, headers);
		res.end();
		return;
	}
	const text = JSON.stringify(reply.body);
	headers['Content-Type'] = 'application/json; charset=utf-8';
	headers['Content-Length'] = String(Buffer.byteLength(text));
	res.writeHead(reply.status, headers);
	res.end(text);
}
