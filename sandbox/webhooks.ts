/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// Webhook registrations, Standard Webhooks signing, deliveries with exponential backoff.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { deliveryHeaders, eventBody, type SandboxConventions } from './conventions';
import type { Ctx } from './context';
import { json, notFound, type Router, validateBody } from './http';
import type { Stats } from './stats';
import { invalidQuery, listQuery } from './store';
import {
	EVENT_SCOPES,
	EVENT_TYPES,
	webhookCreateSchema,
	type ErpEvent,
	type Scope,
	type Webhook,
} from './schemas';

export interface WebhookRetry {
	baseMs: number;
	maxAttempts: number;
	timeoutMs: number;
	/**
	 * What real senders do to a receiver that keeps failing (off by default): after this many
	 * failed attempts in a row, the registration is disabled (WooCommerce: 5) ...
	 */
	failuresToDisable?: number;
	/** ... or deleted (Shopify: 8 failed deliveries in a row, for a subscription made by API). */
	failuresToDelete?: number;
}
export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = {
	baseMs: 1000,
	maxAttempts: 6,
	timeoutMs: 10000,
};

export interface DeliveryAttempt {
	webhook_id: string;
	event_id: string;
	type: string;
	attempt: number;
	/** HTTP status of the receiver's answer, or null when there was none. */
	status: number | null;
	/** 'timeout', a network error code, or null. */
	error: string | null;
	ok: boolean;
	at: string;
}

const LOG_CAP = 10000;

export { signWebhook } from './conventions';

/** A webhook as listed and read: everything but the secret. */
const publicView = (h: Webhook) => ({
	id: h.id,
	url: h.url,
	events: h.events,
	description: h.description,
	status: h.status,
	created_at: h.created_at,
});
const scopesFor = (events: string[]): Scope[] =>
	[
		...new Set(
			(events.includes('*') ? EVENT_TYPES : events).map(
				(e) => EVENT_SCOPES[e as keyof typeof EVENT_SCOPES],
			),
		),
	].filter(Boolean);

export class WebhookService {
	private hooks = new Map<string, Webhook>();
	/** Failed attempts in a row, per registration (a success starts again from 0). */
	private failuresInARow = new Map<string, number>();
	private counter = 0;
	readonly events: ErpEvent[] = [];
	readonly deliveries: DeliveryAttempt[] = [];
	private timers = new Set<NodeJS.Timeout>();
	private requests = new Set<http.ClientRequest>();
	private closed = false;
	/** Until this time (ms), every delivery attempt fails as if the receiver were down. */
	private pausedUntil = 0;

	constructor(
		private readonly retry: () => WebhookRetry,
		private readonly stats: Stats,
		private readonly conventions: () => SandboxConventions,
	) {}

	/** Forgets registrations, logs and pending retries. */
	reset(): void {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		for (const r of this.requests) r.destroy();
		this.requests.clear();
		this.hooks.clear();
		this.failuresInARow.clear();
		this.counter = 0;
		this.events.length = 0;
		this.deliveries.length = 0;
		this.pausedUntil = 0;
	}

	/**
	 * For tests that take the receiver "down" without stopping it: for `seconds` (until `resume`),
	 * each attempt fails without being sent (`error: 'paused'`) and is retried on the usual
	 * schedule, so an event whose attempts all fall in the pause is lost, as with a receiver down.
	 */
	pause(seconds: number): { paused_until: string } {
		this.pausedUntil = Date.now() + seconds * 1000;
		return { paused_until: new Date(this.pausedUntil).toISOString() };
	}

	resume(): void {
		this.pausedUntil = 0;
	}

	get paused(): boolean {
		return Date.now() < this.pausedUntil;
	}

	close(): void {
		this.closed = true;
		this.reset();
	}

	create(
		input: { url: string; events: string[]; description?: string | null },
		now: Date,
	): Webhook {
		this.counter += 1;
		const hook: Webhook = {
			id: `whk_${String(this.counter).padStart(8, '0')}`,
			url: input.url,
			events: [...new Set(input.events)],
			description: input.description ?? null,
			status: 'active',
			created_at: now.toISOString(),
			secret: `whsec_${randomBytes(32).toString('base64')}`,
		};
		this.hooks.set(hook.id, hook);
		return hook;
	}

	get(id: string): Webhook | undefined {
		return this.hooks.get(id);
	}

	delete(id: string): boolean {
		this.failuresInARow.delete(id);
		return this.hooks.delete(id);
	}

	all(): Webhook[] {
		return [...this.hooks.values()];
	}

	/** Records the event and starts one delivery per active webhook subscribed to it. */
	emit(type: ErpEvent['type'], data: Record<string, unknown>, now: Date): ErpEvent {
		const event: ErpEvent = {
			id: `evt_${randomBytes(12).toString('hex')}`,
			type,
			created_at: now.toISOString(),
			data,
		};
		push(this.events, event);
		if (this.closed) return event;
		const body = eventBody(event, this.conventions());
		for (const hook of this.hooks.values()) {
			if (hook.status !== 'active') continue;
			if (!hook.events.includes('*') && !hook.events.includes(type)) continue;
			this.schedule(hook, event, body, 1, 0);
		}
		return event;
	}

	private schedule(
		hook: Webhook,
		event: ErpEvent,
		body: string,
		attempt: number,
		delayMs: number,
	): void {
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			const current = this.hooks.get(hook.id);
			if (this.closed || !current || current.status !== 'active') return;
			this.attempt(current, event, body, attempt);
		}, delayMs);
		this.timers.add(timer);
	}

	/** Records an attempt's outcome, and schedules the next attempt when it failed. */
	private record(
		hook: Webhook,
		event: ErpEvent,
		body: string,
		attempt: number,
		status: number | null,
		error: string | null,
	): void {
		if (this.closed) return;
		const { maxAttempts, baseMs } = this.retry();
		const ok = status !== null && status >= 200 && status < 300;
		push(this.deliveries, {
			webhook_id: hook.id,
			event_id: event.id,
			type: event.type,
			attempt,
			status,
			error,
			ok,
			at: new Date().toISOString(),
		});
		this.stats.webhookDeliveries.attempts++;
		if (ok) {
			this.stats.webhookDeliveries.succeeded++;
			this.failuresInARow.delete(hook.id);
			return;
		}
		this.stats.webhookDeliveries.failed++;
		if (status === 410) {
			hook.status = 'disabled';
			return;
		}
		if (this.giveUpOn(hook)) return;
		if (attempt < maxAttempts)
			this.schedule(hook, event, body, attempt + 1, baseMs * 2 ** (attempt - 1));
	}

	/** Counts a failed attempt; true when the registration was disabled or deleted for it. */
	private giveUpOn(hook: Webhook): boolean {
		const { failuresToDisable, failuresToDelete } = this.retry();
		const failures = (this.failuresInARow.get(hook.id) ?? 0) + 1;
		this.failuresInARow.set(hook.id, failures);
		if (failuresToDelete !== undefined && failures >= failuresToDelete) {
			this.delete(hook.id);
			return true;
		}
		if (failuresToDisable !== undefined && failures >= failuresToDisable) {
			hook.status = 'disabled';
			return true;
		}
		return false;
	}

	private attempt(hook: Webhook, event: ErpEvent, body: string, attempt: number): void {
		if (this.paused) {
			this.record(hook, event, body, attempt, null, 'paused');
			return;
		}
		const { timeoutMs } = this.retry();
		const timestamp = Math.floor(Date.now() / 1000);
		const url = new URL(hook.url);
		const req = (url.protocol === 'https:' ? https : http).request(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'user-agent': 'erp-sandbox-webhooks/1.0',
				...deliveryHeaders(hook.secret, event, body, timestamp, this.conventions()),
			},
		});
		this.requests.add(req);
		let done = false;
		const finish = (status: number | null, error: string | null) => {
			if (done) return;
			done = true;
			this.requests.delete(req);
			this.record(hook, event, body, attempt, status, error);
		};
		req.setTimeout(timeoutMs, () => {
			finish(null, 'timeout');
			req.destroy();
		});
		req.on('response', (res) => {
			res.resume();
			res.on('end', () => finish(res.statusCode ?? null, null));
			res.on('error', (e: NodeJS.ErrnoException) =>
				finish(res.statusCode ?? null, e.code ?? e.message),
			);
		});
		req.on('error', (e: NodeJS.ErrnoException) => finish(null, e.code ?? e.message));
		req.end(body);
	}
}

function push<T>(log: T[], item: T): void {
	log.push(item);
	if (log.length > LOG_CAP) log.splice(0, log.length - LOG_CAP);
}

export function webhookRoutes(router: Router<Ctx>): void {
	router
		.add('GET', '/v1/webhooks', (ctx) => {
			const { limit, cursor } = listQuery(ctx.qs);
			const all = ctx.webhooks.all();
			let start = 0;
			if (cursor !== undefined) {
				start = all.findIndex((h) => h.id === cursor) + 1;
				if (start === 0) throw invalidQuery('cursor', 'Unknown or expired cursor');
			}
			const data = all.slice(start, start + limit);
			const more = start + limit < all.length;
			return json(200, {
				data: data.map(publicView),
				pagination: { total: all.length, next_cursor: more ? data[data.length - 1].id : null },
			});
		})
		.add('POST', '/v1/webhooks', (ctx) => {
			const body = ctx.body();
			const events = (body as { events?: unknown })?.events;
			if (Array.isArray(events))
				ctx.requireScope(...scopesFor(events.filter((e) => typeof e === 'string')));
			const input = validateBody(webhookCreateSchema, body);
			return json(201, ctx.webhooks.create(input, ctx.now()));
		})
		.add('GET', '/v1/webhooks/:id', (ctx, p) => {
			const hook = ctx.webhooks.get(p.id);
			if (!hook) throw notFound('Webhook', p.id);
			ctx.requireScope(...scopesFor(hook.events));
			return json(200, publicView(hook));
		})
		.add('DELETE', '/v1/webhooks/:id', (ctx, p) => {
			const hook = ctx.webhooks.get(p.id);
			if (!hook) throw notFound('Webhook', p.id);
			ctx.requireScope(...scopesFor(hook.events));
			ctx.webhooks.delete(p.id);
			return { status: 204 };
		});
}
