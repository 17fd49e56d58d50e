/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// What a /v1 route handler receives.
import type { IncomingHttpHeaders } from 'node:http';
import type { Emit } from './business';
import type { Scope } from './schemas';
import type { Store } from './store';
import type { WebhookService } from './webhooks';

export interface Ctx {
	method: string;
	path: string;
	qs: URLSearchParams;
	headers: IncomingHttpHeaders;
	store: Store;
	webhooks: WebhookService;
	/** The parsed JSON body (400 `invalid_json` when it does not parse). */
	body(): unknown;
	/** 403 `insufficient_scope` unless the credential has every scope named. */
	requireScope(...scopes: Scope[]): void;
	emit: Emit;
	now(): Date;
}
