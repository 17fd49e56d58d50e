/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- a dev script that runs n8n, not a node */
/**
 * n8n in queue mode on this machine, for `npm run test:queue` and benchmark P6: Redis and
 * PostgreSQL (Debian's `redis-server` and `postgresql`, installed with apt-get when missing) as
 * background processes on 127.0.0.1 with their data in a temporary folder, then n8n main, one
 * webhook processor (`n8n webhook`) and workers (`n8n worker`). Each n8n process has its own user
 * folder with the packed package installed in it (as on separate machines), its own task broker
 * port, and shares the encryption key, the database and Redis with the others.
 *
 *   const queue = await startQueueDeployment({ sandboxBaseUrl, workflows, log });
 *   await queue.rest.activate(workflowId);        // REST client of main, signed in as the owner
 *   await fetch(`${queue.webhookUrl}/webhook/...`) // production webhooks: the webhook processor
 *   await queue.stop();                            // stops everything, removes the folder
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { importWorkflows, type Workflow } from './examples';
import { ensureN8n, tail, type Log } from './n8n-env';
import {
	buildAndPack,
	freePort,
	installPackage,
	N8nRest,
	n8nPaths,
	startBackground,
	startN8n,
	type CredentialImport,
	type N8nConfig,
	type RunningN8n,
} from './n8n-instance';

const MINUTE = 60_000;

export type QueueProcess = {
	role: 'main' | 'webhook' | 'worker';
	name: string;
	/** Its HTTP port (main, webhook) or health-check port (worker). */
	url: string;
	/** n8n's own output. */
	log: string;
	pid: number;
};

export type QueueDeployment = {
	/** n8n main: editor, REST API, triggers and activation. */
	mainUrl: string;
	/**
	 * The (first) webhook processor: production webhooks (`/webhook/...`); N8N_WEBHOOK_URL points
	 * here unless `extraEnv` says otherwise (e.g. a load balancer in front of several).
	 */
	webhookUrl: string;
	/** n8n's REST API on main, signed in as the owner. */
	rest: N8nRest;
	processes: QueueProcess[];
	/** The main process's settings (for `n8nCli`, e.g. more imports). */
	mainConfig: N8nConfig;
	/** The temporary folder with every process's data and logs (removed by stop). */
	folder: string;
	/** The last lines of every log, for a failure message. */
	logs(lines?: number): string;
	/** Runs SQL in n8n's PostgreSQL database with psql; gives psql's unaligned output. */
	sql(query: string): string;
	/** Stops n8n main (the other processes go on). */
	stopMain(): Promise<void>;
	/** kill -9 of n8n main (its process group, as when its machine dies); the others go on. */
	killMain(): Promise<void>;
	/** Starts n8n main again after stopMain or killMain, signed in as the owner. */
	startMain(): Promise<void>;
	/** Stops workers, webhook processor, main, Redis and PostgreSQL; removes the folder. Idempotent. */
	stop(): Promise<void>;
};

export type QueueOptions = {
	/** The `erpApi` credential of the examples points there. */
	sandboxBaseUrl: string;
	/** Imported (with the sandbox credential) before n8n starts. */
	workflows: Workflow[];
	/** More credentials, imported with the sandbox credential before n8n starts. */
	credentials?: CredentialImport[];
	log: Log;
	/** Default 2. */
	workers?: number;
	/** Jobs each worker runs at once (n8n's --concurrency; at least 5). Default 10. */
	workerConcurrency?: number;
	/** A tarball made earlier (else the package is built and packed). */
	tarball?: string;
	/** Webhook processors (`n8n webhook`), default 1; the first is on `webhookUrl`. */
	webhookProcessors?: number;
	/** n8n settings for every n8n process, over the queue-mode ones (e.g. feature flags). */
	extraEnv?: Record<string, string>;
};

/** The newest PostgreSQL server's bin folder (Debian: /usr/lib/postgresql/<version>/bin). */
function postgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const versions = fs
		.readdirSync(root)
		.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

/** The lock the test files' apt-get runs share (ensureDebianPackages). */
const APT_LOCK = path.join(os.tmpdir(), 'n8n-nodes-erp-apt-get.lock');

/** `command` is on the PATH. */
export function has(command: string): boolean {
	return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs the Debian packages that are missing with apt-get (needs root); none: does nothing.
 * Test files run side by side (issue 38): apt-get runs under one machine-wide lock (`flock`), so a
 * second file waits for the first file's install instead of failing on apt's own lock.
 */
export function ensureDebianPackages(missing: string[], log: Log): void {
	if (missing.length === 0) return;
	if (process.getuid?.() !== 0) {
		throw new Error(
			`Queue mode needs ${missing.join(' and ')}: install them (apt-get install ${missing.join(' ')}) and try again.`,
		);
	}
	log(`installing ${missing.join(', ')} with apt-get...`);
	for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
		const result = spawnSync('flock', [APT_LOCK, 'apt-get', ...args], {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			encoding: 'utf8',
			timeout: 15 * MINUTE,
		});
		if (result.status !== 0) {
			throw new Error(
				`apt-get ${args.join(' ')} failed:\n${(result.stderr || result.stdout).slice(-2000)}`,
			);
		}
	}
}

/** Installs Debian's redis-server and postgresql when they are missing (needs root). */
export function ensureRedisAndPostgres(log: Log): { redisServer: string; postgresBin: string } {
	const missing: string[] = [];
	if (!has('redis-server')) missing.push('redis-server');
	if (!postgresBinDir()) missing.push('postgresql');
	ensureDebianPackages(missing, log);
	return { redisServer: 'redis-server', postgresBin: postgresBinDir()! };
}

/** Resolves true when Redis on 127.0.0.1:port answers PING. */
async function redisAnswers(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		const done = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(2000, () => done(false));
		socket.on('error', () => done(false));
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
	});
}

/**
 * Runs a command as the `postgres` user when we are root (PostgreSQL refuses to run as root),
 * else as ourselves.
 */
function asPostgresUser(command: string, args: string[]): { command: string; args: string[] } {
	return process.getuid?.() === 0
		? { command: 'runuser', args: ['-u', 'postgres', '--', command, ...args] }
		: { command, args };
}

export async function startQueueDeployment(options: QueueOptions): Promise<QueueDeployment> {
	const { log } = options;
	const workers = options.workers ?? 2;
	const { redisServer, postgresBin } = ensureRedisAndPostgres(log);
	const env = await ensureN8n(log);
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-'));
	fs.chmodSync(folder, 0o755); // the postgres user reaches its data folder through it
	const started: Array<{ name: string; running: RunningN8n }> = [];
	const processes: QueueProcess[] = [];
	const logFiles: string[] = [];
	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		// Workers and the webhook processor first, then main, then Redis and PostgreSQL.
		for (const { running } of [...started].reverse()) await running.stop();
		fs.rmSync(folder, { recursive: true, force: true });
	};
	const logs = (lines = 20) =>
		logFiles.map((file) => `--- ${path.relative(folder, file)}\n${tail(file, lines)}`).join('\n');

	try {
		// PostgreSQL: a fresh cluster owned by the postgres user, superuser n8n, trust on loopback.
		const pgData = path.join(folder, 'postgres');
		fs.mkdirSync(pgData, { mode: 0o700 });
		if (process.getuid?.() === 0) spawnSync('chown', ['postgres:postgres', pgData]);
		const pgLog = path.join(folder, 'postgres.log');
		logFiles.push(pgLog);
		const initdb = asPostgresUser(path.join(postgresBin, 'initdb'), [
			'-D',
			pgData,
			'-U',
			'n8n',
			'-A',
			'trust',
			'-E',
			'UTF8',
			'--no-sync',
		]);
		const init = spawnSync(initdb.command, initdb.args, { encoding: 'utf8', timeout: 5 * MINUTE });
		if (init.status !== 0)
			throw new Error(`initdb failed:\n${(init.stderr || init.stdout).slice(-2000)}`);
		const pgPort = await freePort();
		const postgres = asPostgresUser(path.join(postgresBin, 'postgres'), [
			'-D',
			pgData,
			'-p',
			String(pgPort),
			'-k',
			pgData,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'fsync=off',
			'-c',
			'max_connections=200',
		]);
		const isReady = path.join(postgresBin, 'pg_isready');
		/** How pg_isready and psql reach the database n8n uses. */
		const connection = ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'n8n', '-d', 'postgres'];
		started.push({
			name: 'postgres',
			running: await startBackground({
				name: 'PostgreSQL',
				...postgres,
				cwd: folder,
				env: process.env,
				logFile: pgLog,
				ready: async () => spawnSync(isReady, connection).status === 0,
				timeoutMs: 2 * MINUTE,
				stopSignal: 'SIGINT', // fast shutdown
			}),
		});
		log(`PostgreSQL on 127.0.0.1:${pgPort}`);

		// Redis: no persistence, loopback only.
		const redisPort = await freePort();
		const redisLog = path.join(folder, 'redis.log');
		logFiles.push(redisLog);
		fs.mkdirSync(path.join(folder, 'redis'));
		started.push({
			name: 'redis',
			running: await startBackground({
				name: 'Redis',
				command: redisServer,
				args: [
					'--port',
					String(redisPort),
					'--bind',
					'127.0.0.1',
					'--save',
					'',
					'--appendonly',
					'no',
					'--dir',
					path.join(folder, 'redis'),
				],
				cwd: folder,
				env: process.env,
				logFile: redisLog,
				ready: async () => await redisAnswers(redisPort),
				timeoutMs: MINUTE,
			}),
		});
		log(`Redis on 127.0.0.1:${redisPort}`);

		// One package, installed in every n8n process's own user folder.
		const tarball =
			options.tarball ??
			(await buildAndPack(path.join(folder, 'pack'), path.join(folder, 'setup.log'), log));
		const mainPort = await freePort();
		const webhookPort = await freePort();
		const webhookUrl = `http://127.0.0.1:${webhookPort}`;
		const shared: Record<string, string> = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redisPort),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(pgPort),
			DB_POSTGRESDB_DATABASE: 'postgres',
			DB_POSTGRESDB_USER: 'n8n',
			DB_POSTGRESDB_PASSWORD: 'n8n',
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// Production webhook URLs (shown in the editor, registered at the ERP) go to the webhook processor.
			N8N_WEBHOOK_URL: `${webhookUrl}/`,
			N8N_LOG_LEVEL: 'info',
			...options.extraEnv,
		};
		const configFor = async (name: string, port: number, extra: Record<string, string> = {}) => {
			const paths = n8nPaths(path.join(folder, name));
			fs.mkdirSync(paths.userFolder, { recursive: true });
			logFiles.push(paths.n8nLog);
			const config: N8nConfig = {
				env,
				paths,
				port,
				brokerPort: await freePort(),
				extraEnv: { ...shared, ...extra },
			};
			return config;
		};

		const mainConfig = await configFor('main', mainPort);
		// Webhook processors: the first on webhookPort, the others (webhookProcessors > 1) on their own.
		const webhookConfigs: Array<{ name: string; config: N8nConfig }> = [];
		for (let i = 1; i <= (options.webhookProcessors ?? 1); i++) {
			const name = i === 1 ? 'webhook' : `webhook-${i}`;
			webhookConfigs.push({
				name,
				config: await configFor(name, i === 1 ? webhookPort : await freePort()),
			});
		}
		const workerConfigs: Array<{ name: string; config: N8nConfig; healthUrl: string }> = [];
		for (let i = 1; i <= workers; i++) {
			const healthPort = await freePort();
			workerConfigs.push({
				name: `worker-${i}`,
				healthUrl: `http://127.0.0.1:${healthPort}`,
				config: await configFor(`worker-${i}`, await freePort(), {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(healthPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}),
			});
		}
		// Every process's install at once; the imports into the database once main's is there.
		const installed = async (config: N8nConfig) => await installPackage(config.paths, tarball, log);
		await Promise.all([
			(async () => {
				await installed(mainConfig);
				await importWorkflows(
					mainConfig,
					{
						sandboxBaseUrl: options.sandboxBaseUrl,
						workflows: options.workflows,
						credentials: options.credentials,
					},
					log,
				);
			})(),
			...[...webhookConfigs, ...workerConfigs].map(async ({ config }) => await installed(config)),
		]);
		const rest = new N8nRest(`http://127.0.0.1:${mainPort}`);
		// Main stays at the same place in `started` across restarts: stopped after the others.
		const mainSlot = started.length;
		const startMain = async () => {
			const main = await startN8n(mainConfig);
			started[mainSlot] = { name: 'main', running: main };
			const entry: QueueProcess = {
				role: 'main',
				name: 'main',
				url: main.url,
				log: mainConfig.paths.n8nLog,
				pid: main.pid,
			};
			const known = processes.findIndex((p) => p.role === 'main');
			if (known >= 0) processes[known] = entry;
			else processes.push(entry);
			log(`n8n main on ${main.url}`);
			// /rest answers a few seconds after /healthz.
			for (let attempt = 0; ; attempt++) {
				try {
					await rest.signInAsOwner();
					break;
				} catch (error) {
					if (attempt > 60) throw error;
					await new Promise((resolve) => setTimeout(resolve, 1000));
				}
			}
		};
		const stopMain = async () => await started[mainSlot].running.stop();
		const killMain = async () => {
			const main = started[mainSlot].running;
			process.kill(-main.pid, 'SIGKILL');
			await main.exited;
		};
		await startMain();
		const sql = (query: string) => {
			const psql = spawnSync(path.join(postgresBin, 'psql'), [...connection, '-At', '-c', query], {
				encoding: 'utf8',
				timeout: MINUTE,
			});
			if (psql.status !== 0) throw new Error(`psql failed: ${psql.stderr}`);
			return psql.stdout;
		};

		// Once main answers (it migrated the database), the webhook processors and workers start side
		// by side (issue 38: ~20 s of CPU each, partly waiting).
		const others = await Promise.allSettled([
			...webhookConfigs.map(async ({ name, config }, i) => {
				const webhook = await startN8n(config, 4 * MINUTE, { command: ['webhook'] });
				started.push({ name, running: webhook });
				const entry: QueueProcess = {
					role: 'webhook',
					name,
					url: webhook.url,
					log: config.paths.n8nLog,
					pid: webhook.pid,
				};
				log(`n8n webhook processor ${i + 1} on ${webhook.url}`);
				return entry;
			}),
			...workerConfigs.map(async ({ name, config, healthUrl }, i) => {
				const worker = await startN8n(config, 4 * MINUTE, {
					command: ['worker', `--concurrency=${options.workerConcurrency ?? 10}`],
					healthUrl: `${healthUrl}/healthz/readiness`,
				});
				started.push({ name, running: worker });
				const entry: QueueProcess = {
					role: 'worker',
					name,
					url: healthUrl,
					log: config.paths.n8nLog,
					pid: worker.pid,
				};
				log(`n8n worker ${i + 1} ready (health ${healthUrl})`);
				return entry;
			}),
		]);
		for (const result of others) if (result.status === 'rejected') throw result.reason;
		// In the order asked for (webhook processors, then workers), whichever answered first.
		processes.push(...others.map((r) => (r as PromiseFulfilledResult<QueueProcess>).value));
		return {
			mainUrl: rest.url,
			webhookUrl,
			rest,
			processes,
			mainConfig,
			folder,
			logs,
			sql,
			stopMain,
			killMain,
			startMain,
			stop,
		};
	} catch (error) {
		const message = `${(error as Error).message}\n${logs(30)}`;
		await stop();
		throw new Error(message);
	}
}

/**
 * How many executions each worker has started so far (each worker logs the executions it starts:
 * `Worker started execution <id> (job <n>)`); with `executionIds`, only those executions (a
 * scenario's own, on a deployment other scenarios use too).
 */
export function startedPerWorker(
	q: Pick<QueueDeployment, 'processes'>,
	executionIds?: Iterable<string>,
): number[] {
	const only = executionIds ? new Set(executionIds) : undefined;
	return q.processes
		.filter((p) => p.role === 'worker')
		.map(
			(p) =>
				[...fs.readFileSync(p.log, 'utf8').matchAll(/Worker started execution (\d+)/g)].filter(
					([, id]) => !only || only.has(id),
				).length,
		);
}
