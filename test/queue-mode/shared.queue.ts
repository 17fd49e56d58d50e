/**
 * `npm run test:queue`: the queue-mode scenarios that share one deployment (issue 38; main, a
 * webhook processor, 2 workers, Redis, PostgreSQL; test/queue-mode/shared-deployment.ts), each
 * with its own sandbox, workflows and credentials, side by side:
 * - order-burst.ts: the ERP Trigger's replay checks on the webhook processor, then, alone, 40
 *   concurrent orders through the order example, one key, 30 per 10 s;
 * - write-once.ts: the same order twice at the same moment, the ERP keeping or ignoring
 *   Idempotency-Key;
 * - oauth-refresh.ts: 20 executions at once just after the OAuth2 access token expired.
 *
 * The others keep a deployment of their own, each saying why in its header: polling.queue.ts
 * and polling-durable.queue.ts (polling-queue.ts) stop, restart and kill main, and the durable
 * one runs every process with other n8n settings; webhooks-nginx.queue.ts runs 2 webhook
 * processors behind nginx with main out of the webhook pool, and kills a webhook processor and a
 * worker. flash-sale.queue.ts (off unless ERP_QUEUE_FLASH_SALE=1, issue 39) keeps its own.
 *
 * Not in `npm test` (it takes minutes and installs Redis and PostgreSQL when missing); CI runs it.
 */
import { oauthRefresh } from './oauth-refresh';
import { orderBurst } from './order-burst';
import { useSharedDeployment } from './shared-deployment';
import { writeOnce } from './write-once';

// The order burst first: the demo credential points at its sandbox.
useSharedDeployment([orderBurst, writeOnce, oauthRefresh]);
