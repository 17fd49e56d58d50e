/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n and nginx from outside, not a node */
/**
 * The flash sale in real n8n 2.41.1 against a rate limiter nobody here wrote (issue 39): Debian's
 * nginx in front of the sandbox, `limit_req` at 100 requests per minute per API key, burst 10,
 * nodelay (a leaky bucket answering a bare 429), started by the test as the queue-mode tests start
 * nginx (scripts/nginx.ts). The example's credential points at nginx. Two runs of 30 concurrent
 * orders: nginx alone (the ERP sends no rate-limit header), and nginx in front of the sandbox
 * reporting its own 100 per minute in `RateLimit-*` headers (the case the pacing of before lost
 * orders in: it took the headers as permission to burst). Every order gets exactly one invoice,
 * paid; no execution fails; under 10 % of the requests nginx saw were answered 429. The control:
 * 40 requests at once through the same nginx are refused as its bucket says (29 or so).
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { demoCredential, EXAMPLE_IDS } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { freePort, keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { limiterSite, runNginx, type RunningNginx } from '../../scripts/nginx';
import { prepareBurst, sandboxControl } from '../../scripts/order-burst';
import { e2eLog, MINUTE, startE2e, type E2e } from './helpers';
import { burstThroughN8n, orderExample } from './order-burst';

const SKIP = skipE2e();
const log = e2eLog('nginx-limit');
const ORDERS = 30;

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: the flash sale through nginx's limit_req, 100 per minute, burst 10`,
	() => {
		let e2e: E2e;
		let nginx: RunningNginx;
		let folder: string;
		const files = keepFilesOnFailure(log);
		const { workflow, webhookPath } = orderExample();
		/** The API requests nginx saw since `from` (its access log), and those it answered 429. */
		const seen = (from: number) => {
			const api = nginx
				.requests()
				.slice(from)
				.filter((r) => r.path.startsWith('/v1/'));
			return { requests: api.length, refused: api.filter((r) => r.status === 429).length };
		};

		beforeAll(async () => {
			folder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nginx-limit-'));
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-nginx-limit-',
				log,
				files,
				workflows: () => [workflow],
				credentials: async (started) => {
					const listen = await freePort();
					const upstream = new URL(started.sandbox.url).host;
					const site = limiterSite({ listen, upstream, perMinute: 100, burst: 10 });
					nginx = await runNginx(site, listen, folder, log);
					// The example's credential points at nginx, not at the sandbox.
					return [demoCredential(`${nginx.url}/v1`)];
				},
			});
			await e2e.rest.activate(EXAMPLE_IDS.orderToInvoice);
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
			await nginx?.stop();
			fs.rmSync(folder, { recursive: true, force: true });
		}, 10 * MINUTE);

		it('control: 40 requests at once through nginx, most refused with a bare 429', async () => {
			await sandboxControl(e2e.sandbox.url, 'config', { rateLimit: false });
			const from = nginx.requests().length;
			// A key of its own in nginx's zone (the zone is per Authorization header).
			const answers = await Promise.all(
				Array.from({ length: 40 }, async () => {
					const answer = await fetch(`${nginx.url}/v1/articles?limit=1`, {
						headers: { authorization: 'Bearer sk_test_nginx_control' },
					});
					await answer.text();
					return { status: answer.status, retryAfter: answer.headers.get('retry-after') };
				}),
			);
			const refused = answers.filter((a) => a.status === 429);
			assert.ok(refused.length >= 25, `${refused.length} of 40 refused`);
			assert.ok(
				refused.every((a) => a.retryAfter === null),
				'a bare 429',
			);
			assert.equal(seen(from).refused, refused.length, 'the access log counts them');
		});

		const RUNS = [
			{ name: 'nginx alone (the ERP sends no rate-limit header)', sandboxLimit: false },
			{ name: 'nginx in front of the ERP reporting its own 100 per minute', sandboxLimit: true },
		];
		RUNS.forEach(({ name, sandboxLimit }, index) => {
			it(
				`${name}: ${ORDERS} orders, every one invoiced once and paid, no execution failed, under 10 % answered 429`,
				files.track(async () => {
					const plan = await prepareBurst(e2e.sandbox, {
						count: ORDERS,
						tag: `E2ENG${index}${Date.now() % 100000}`,
						limit: 100,
						windowSeconds: 60,
						headers: 'ietf-fields',
					});
					if (!sandboxLimit) await sandboxControl(e2e.sandbox.url, 'config', { rateLimit: false });
					const from = nginx.requests().length;
					const webhookUrl = `${e2e.n8n!.url}/webhook/${webhookPath}`;
					await burstThroughN8n(e2e, webhookUrl, plan, ORDERS * index, name);
					const { requests, refused } = seen(from);
					log(`${name}: nginx saw ${requests} API requests, ${refused} answered 429`);
					assert.ok(refused / requests < 0.1, `${refused} of ${requests} answered 429`);
				}),
				15 * MINUTE,
			);
		});
	},
);
