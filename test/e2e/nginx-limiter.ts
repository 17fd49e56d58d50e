/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives nginx from outside, not a node */
/**
 * A rate limiter nobody here wrote in front of a sandbox (issue 39), for the flash sales through
 * it: in one n8n process (nginx-limit.test.ts) and across two queue-mode workers
 * (test/queue-mode/flash-sale.ts). Debian's nginx, `limit_req` at 100 requests per minute per API
 * key, burst 10, nodelay: a leaky bucket answering a bare 429 (scripts/nginx.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { Log } from '../../scripts/n8n-env';
import { freePort } from '../../scripts/n8n-instance';
import { limiterSite, runNginx, type RunningNginx } from '../../scripts/nginx';
import { type BurstPlan, prepareBurst, sandboxControl } from '../../scripts/order-burst';

/** The two runs: nginx alone (the ERP sends no rate-limit header), and in front of its headers. */
export const NGINX_RUNS = [
	{ name: 'nginx alone (the ERP sends no rate-limit header)', sandboxLimit: false },
	{ name: 'nginx in front of the ERP reporting its own 100 per minute', sandboxLimit: true },
];

/**
 * The burst of a run (`count` orders, `tag`): the sandbox at the specification's 100 per minute
 * reporting it in headers (`sandboxLimit`), else with no limit of its own (nginx alone).
 */
export async function prepareNginxBurst(
	sandbox: { url: string; baseUrl: string },
	run: { count: number; tag: string; sandboxLimit: boolean },
): Promise<BurstPlan> {
	const plan = await prepareBurst(sandbox, {
		count: run.count,
		tag: run.tag,
		limit: 100,
		windowSeconds: 60,
		headers: 'ietf-fields',
	});
	if (!run.sandboxLimit) await sandboxControl(sandbox.url, 'config', { rateLimit: false });
	return plan;
}

/** An nginx of its own (its files in a new folder, removed by `stop`) in front of `sandbox`. */
export async function limiterInFront(sandbox: { url: string }, log: Log): Promise<RunningNginx> {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nginx-limit-'));
	const listen = await freePort();
	const upstream = new URL(sandbox.url).host;
	const site = limiterSite({ listen, upstream, perMinute: 100, burst: 10 });
	const nginx = await runNginx(site, listen, folder, log);
	return {
		...nginx,
		async stop() {
			await nginx.stop();
			fs.rmSync(folder, { recursive: true, force: true });
		},
	};
}

/** The API requests nginx saw since `from` (its access log), and those it answered 429. */
export function seen(nginx: RunningNginx, from: number) {
	const api = nginx
		.requests()
		.slice(from)
		.filter((r) => r.path.startsWith('/v1/'));
	return { requests: api.length, refused: api.filter((r) => r.status === 429).length };
}

/**
 * The control: 40 requests at once through `nginx` on a key of their own (its bucket's own); how
 * many were refused, whether every refusal was a bare 429, and how many its access log counts.
 */
export async function controlThrough(nginx: RunningNginx) {
	const from = nginx.requests().length;
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
	return {
		refused: refused.length,
		bare: refused.every((a) => a.retryAfter === null),
		logged: seen(nginx, from).refused,
	};
}
