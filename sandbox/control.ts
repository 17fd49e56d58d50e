// The control API under /_sandbox/ (no auth, never counted in stats).
import type { App } from './server';
import { stockBasData } from './business';
import { ApiError, json, Router, validateBody } from './http';
import {
	controlConfigSchema,
	deliveriesPauseSchema,
	eventEmitSchema,
	faultsBodySchema,
	keyCreateSchema,
	keyRevokeSchema,
	resetSchema,
} from './schemas';

export interface ControlCtx {
	app: App;
	qs: URLSearchParams;
	body(): unknown;
}

/**
 * The data of an event emitted through the control API: as given, except that a `stock.bas`
 * naming a known `article_id` gets the article's fields, as the ERP's own `stock.bas` has them
 * (`mouvement_id` null: no movement crossed the threshold), under what was given.
 */
function eventData(
	app: App,
	input: { type: string; data: Record<string, unknown> },
): Record<string, unknown> {
	const article =
		input.type === 'stock.bas' && typeof input.data.article_id === 'string'
			? app.store.articles.get(input.data.article_id)
			: undefined;
	if (!article) return input.data;
	return { ...stockBasData(article, ''), mouvement_id: null, ...input.data };
}

export function controlRouter(): Router<ControlCtx> {
	return new Router<ControlCtx>()
		.add('POST', '/_sandbox/reset', ({ app, body }) => {
			const input = validateBody(resetSchema, body());
			app.reset(input);
			return json(200, { ok: true, articles: app.store.articles.size });
		})
		.add('GET', '/_sandbox/config', ({ app }) => json(200, app.config))
		.add('POST', '/_sandbox/config', ({ app, body }) =>
			json(200, app.configure(validateBody(controlConfigSchema, body()))),
		)
		.add('GET', '/_sandbox/faults', ({ app }) => json(200, { faults: app.faults.list() }))
		.add('POST', '/_sandbox/faults', ({ app, body }) => {
			const input = validateBody(faultsBodySchema, body());
			app.faults.set(input.faults, input.seed);
			return json(200, { faults: app.faults.list() });
		})
		.add('POST', '/_sandbox/events', ({ app, body }) => {
			const input = validateBody(eventEmitSchema, body());
			const event = app.webhooks.emit(input.type, eventData(app, input), new Date());
			return json(200, { id: event.id });
		})
		.add('GET', '/_sandbox/events', ({ app, qs }) => {
			const type = qs.get('type');
			return json(200, { data: app.webhooks.events.filter((e) => !type || e.type === type) });
		})
		.add('GET', '/_sandbox/deliveries', ({ app, qs }) => {
			const hook = qs.get('webhook_id');
			return json(200, {
				data: app.webhooks.deliveries.filter((d) => !hook || d.webhook_id === hook),
			});
		})
		.add('POST', '/_sandbox/deliveries/pause', ({ app, body }) => {
			const input = validateBody(deliveriesPauseSchema, body() ?? {});
			return json(200, app.webhooks.pause(input.seconds));
		})
		.add('POST', '/_sandbox/deliveries/resume', ({ app }) => {
			app.webhooks.resume();
			return json(200, { paused: false });
		})
		.add('GET', '/_sandbox/webhook-secret', ({ app, qs }) => {
			// For tests that must sign or replay deliveries as the ERP would (the API never lists secrets).
			const hook = app.webhooks.all().find((w) => w.url === qs.get('url'));
			if (!hook) throw new ApiError(404, 'not_found', 'No webhook is registered for that url');
			return json(200, { id: hook.id, secret: hook.secret });
		})
		.add('GET', '/_sandbox/stats', ({ app }) => json(200, app.statsSnapshot()))
		.add('GET', '/_sandbox/requests', ({ app }) => json(200, { data: app.stats.log }))
		.add('POST', '/_sandbox/keys', ({ app, body }) => {
			const input = validateBody(keyCreateSchema, body());
			const key = app.keys.create(input.scopes, input.name);
			return json(201, { key, name: input.name ?? 'Test key', scopes: input.scopes });
		})
		.add('POST', '/_sandbox/keys/revoke', ({ app, body }) => {
			const input = validateBody(keyRevokeSchema, body());
			if (!app.keys.revoke(input.key)) throw new ApiError(404, 'not_found', 'Key not found');
			return json(200, { revoked: true });
		});
}
