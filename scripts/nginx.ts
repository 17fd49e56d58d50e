/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a dev script that runs nginx, not a node */
/**
 * nginx in front of n8n's queue mode, for `npm run test:queue` and the Production guide
 * (docs/production-recipes.md, whose nginx block is `webhookSite(DOC_SITE)`, checked by
 * test/queue-mode/nginx-doc.test.ts):
 * - `webhookSite` is the recipe: the part of nginx's configuration a user adds (upstreams and
 *   the server block). `/webhook/` goes to the webhook processors, each path always to the same
 *   one (`hash $uri consistent`); everything else (editor, REST API, test webhooks) to main,
 *   which is kept out of the `/webhook/` pool. `balance: 'round-robin'` is the control: the
 *   same without the hash line.
 * - `startNginx` runs Debian's nginx (installed with apt-get when missing) in the foreground with
 *   that site and its own pid, logs and temporary folders, and an access log that names the
 *   processor each request went to.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

import type { Log } from './n8n-env';
import { startBackground, type RunningN8n } from './n8n-instance';
import { ensureDebianPackages, has } from './queue-mode';

export type WebhookSite = {
	/** The port nginx listens on. */
	listen: number;
	/** host:port of each webhook processor (`n8n webhook`). */
	processors: string[];
	/** host:port of n8n main. */
	main: string;
	/** 'by-path' (the recipe, default) or 'round-robin' (the control). */
	balance?: 'by-path' | 'round-robin';
};

/** The addresses the Production guide shows. */
export const DOC_SITE: WebhookSite = {
	listen: 80,
	processors: ['webhook-1:5678', 'webhook-2:5678'],
	main: 'main:5678',
};

/** The recipe: the upstreams and the server block, as a user adds them to nginx's configuration. */
export function webhookSite(site: WebhookSite): string {
	const byPath = (site.balance ?? 'by-path') === 'by-path';
	const proxied = [
		'        proxy_http_version 1.1;',
		'        proxy_set_header Host $host;',
		'        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
		'        proxy_set_header X-Forwarded-Proto $scheme;',
	];
	return [
		'# n8n webhook processors: production webhooks (/webhook/...).',
		'upstream n8n_webhooks {',
		...(byPath
			? [
					'    # Each path (one ERP Trigger) always goes to the same processor, so that a copy of',
					'    # a delivery meets the process that remembers the first; if that processor is down,',
					'    # the next one takes over.',
					'    hash $uri consistent;',
				]
			: []),
		'    # max_fails=0: a processor that is down (connection refused) only sends the request on to',
		'    # the next; one slow answer does not take a processor out of the pool.',
		...site.processors.map((p) => `    server ${p} max_fails=0;`),
		'}',
		'',
		'# n8n main: editor, REST API, test webhooks. Never in the /webhook/ pool.',
		'upstream n8n_main {',
		`    server ${site.main};`,
		'}',
		'',
		'server {',
		`    listen ${site.listen};`,
		'    client_max_body_size 16m;',
		'',
		'    location /webhook/ {',
		'        proxy_pass http://n8n_webhooks;',
		...proxied,
		'        # A webhook that answers when the workflow ends ("When Last Node Finishes") waits as',
		"        # long as the run: longer than nginx's default of 60 s under a rate limit.",
		'        proxy_read_timeout 300s;',
		'    }',
		'',
		'    location / {',
		'        proxy_pass http://n8n_main;',
		...proxied,
		"        # The editor's push connection.",
		'        proxy_set_header Upgrade $http_upgrade;',
		'        proxy_set_header Connection "upgrade";',
		'    }',
		'}',
		'',
	].join('\n');
}

/** nginx's own settings around the site, for a foreground process with everything in `folder`. */
function mainConfig(folder: string, site: string): string {
	const temp = (name: string) => `    ${name}_temp_path ${path.join(folder, 'temp', name)};`;
	return [
		'daemon off;',
		'worker_processes 1;',
		`pid ${path.join(folder, 'nginx.pid')};`,
		`error_log ${path.join(folder, 'error.log')} warn;`,
		'events { worker_connections 1024; }',
		'http {',
		"    log_format upstream '$request_method $uri $status $upstream_addr';",
		`    access_log ${path.join(folder, 'access.log')} upstream;`,
		...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
		site,
		'}',
		'',
	].join('\n');
}

export type RunningNginx = RunningN8n & {
	/** Every request so far: method, path, status, and the processor that answered. */
	requests(): Array<{ method: string; path: string; status: number; upstream: string }>;
};

async function listening(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.on('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.on('error', () => resolve(false));
	});
}

/** Runs nginx with `site` (see webhookSite) until stop(); its files in `folder`. */
export async function startNginx(
	site: WebhookSite,
	folder: string,
	log: Log,
): Promise<RunningNginx> {
	const running = await runNginx(webhookSite(site), site.listen, folder, log);
	log(`nginx (${site.balance ?? 'by-path'}) on 127.0.0.1:${site.listen}`);
	return running;
}

/**
 * A rate limiter nobody here wrote in front of `upstream` (host:port): nginx's `limit_req`, a
 * leaky bucket per API key (the Authorization header) at `perMinute` with `burst`, `nodelay`,
 * answering a bare 429 (no Retry-After, no budget header), as API gateways are deployed.
 */
export function limiterSite(site: {
	listen: number;
	upstream: string;
	perMinute: number;
	burst: number;
}): string {
	return [
		`limit_req_zone $http_authorization zone=erp_keys:1m rate=${site.perMinute}r/m;`,
		'server {',
		`    listen ${site.listen};`,
		'    location / {',
		`        limit_req zone=erp_keys burst=${site.burst} nodelay;`,
		'        limit_req_status 429;',
		`        proxy_pass http://${site.upstream};`,
		'        proxy_http_version 1.1;',
		'        proxy_set_header Host $host;',
		'    }',
		'}',
		'',
	].join('\n');
}

/** Runs Debian's nginx (installed when missing) with `site`, a server block on `listen`. */
export async function runNginx(
	site: string,
	listen: number,
	folder: string,
	log: Log,
): Promise<RunningNginx> {
	if (!has('nginx')) ensureDebianPackages(['nginx'], log);
	fs.mkdirSync(path.join(folder, 'temp'), { recursive: true });
	fs.chmodSync(path.join(folder, 'temp'), 0o777); // nginx's workers run as an unprivileged user
	const configFile = path.join(folder, 'nginx.conf');
	fs.writeFileSync(configFile, mainConfig(folder, site));
	const running = await startBackground({
		name: 'nginx',
		command: 'nginx',
		args: ['-p', folder, '-c', configFile],
		cwd: folder,
		env: process.env,
		logFile: path.join(folder, 'nginx.log'),
		ready: async () => await listening(listen),
		timeoutMs: 60_000,
		stopSignal: 'SIGQUIT', // graceful
	});
	const accessLog = path.join(folder, 'access.log');
	return {
		...running,
		url: `http://127.0.0.1:${listen}`,
		requests: () =>
			(fs.existsSync(accessLog) ? fs.readFileSync(accessLog, 'utf8') : '')
				.split('\n')
				.filter(Boolean)
				.map((line) => {
					// $upstream_addr lists every processor tried ("a, b"), last.
					const [method, uri, status, ...upstream] = line.split(' ');
					return { method, path: uri, status: Number(status), upstream: upstream.join(' ') };
				}),
	};
}
