/**
 * `npm run test:queue`: the queue-mode scenarios that share one deployment (issue 38; main, a
 * webhook processor, 2 workers, Redis, PostgreSQL; test/queue-mode/shared-deployment.ts), each
 * with its own sandbox, workflows and credentials, side by side:
 * - trigger-replay.ts: the ERP Trigger's replay checks on the webhook processor;
 * - write-once.ts: the same order twice at the same moment, the ERP keeping or ignoring
 *   Idempotency-Key;
 * - oauth-refresh.ts: 20 executions at once just after the OAuth2 access token expired;
 * - flash-sale.ts (issue 39), once the others are over: 30 concurrent orders through the order
 *   example against each limiter (a token bucket and a sliding window answering a bare 429, a
 *   fixed window with headers; nginx's limit_req alone and in front of the sandbox's headers),
 *   the five runs side by side, one key each.
 *
 * The others keep a deployment of their own, each saying why in its header: polling.queue.ts
 * and polling-durable.queue.ts (polling-queue.ts) stop, restart and kill main, and the durable
 * one runs every process with other n8n settings; webhooks-nginx.queue.ts runs 2 webhook
 * processors behind nginx with main out of the webhook pool, and kills a webhook processor and a
 * worker.
 *
 * Not in `npm test` (it takes minutes and installs Redis and PostgreSQL when missing); CI runs it.
 */
import { flashSales } from './flash-sale';
import { oauthRefresh } from './oauth-refresh';
import { useSharedDeployment } from './shared-deployment';
import { triggerReplay } from './trigger-replay';
import { writeOnce } from './write-once';

// The replay checks first: the demo credential points at their sandbox.
useSharedDeployment([triggerReplay, writeOnce, oauthRefresh, ...flashSales]);
