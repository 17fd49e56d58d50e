/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- a dev script that runs n8n, not a node */
/**
 * Runs real n8n with this package installed as a community package: used by `npm start`
 * (scripts/start.ts) and the end-to-end tests (test/e2e/).
 *
 * - `buildAndPack` builds the package and makes the npm tarball, as `npm publish` would.
 * - `installPackage` installs that tarball into `<userFolder>/.n8n/nodes`, which is where n8n
 *   installs community packages and where it loads them from (n8n's manual install:
 *   `cd ~/.n8n/nodes && npm install <package>`; peer dependencies are left out, as n8n does).
 * - `n8nCli` runs an n8n CLI command (import, execute, ...) against the same user folder.
 * - `startN8n` starts `n8n start` (or `n8n webhook`, `n8n worker`) in its own process group, logs
 *   to a file, waits until ready; `startBackground` does the same for any program (Redis, ...).
 * - `N8nRest` talks to n8n's REST API as the owner (the API the editor uses).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { parse as parseFlatted } from 'flatted';

import {
	childEnv,
	ensureN8n,
	killGroup,
	killOnExit,
	formatDuration,
	n8nMajor,
	n8nVersion,
	run,
	tail,
	type Log,
	type N8nEnv,
} from './n8n-env';

export const REPO_DIR = path.resolve(__dirname, '..');
const PACKAGE_NAME: string = JSON.parse(
	fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8'),
).name;

const MINUTE = 60_000;

/** The owner account n8n is set up with (local, loopback-only instances). */
export const OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'ErpDemo-2026',
};

export type N8nPaths = {
	/** N8N_USER_FOLDER: n8n keeps its data in `<userFolder>/.n8n`. */
	userFolder: string;
	/** Output of builds and npm commands. */
	setupLog: string;
	/** n8n's own output. */
	n8nLog: string;
};

export function n8nPaths(userFolder: string): N8nPaths {
	return {
		userFolder,
		setupLog: path.join(userFolder, 'setup.log'),
		n8nLog: path.join(userFolder, 'n8n.log'),
	};
}

/**
 * Ports handed out here are drawn at random below the kernel's ephemeral range (32768 and up on
 * Linux), never twice in one process. A port asked of the kernel (`listen(0)`) comes from that
 * range, and so does the local port of every outgoing connection: handed out and closed, it was
 * seen taken again before n8n listened on it (CI: "n8n's port 43217 is already in use", parallel
 * test files making thousands of connections). Below the range, only another caller of this
 * function can take it.
 */
const PORTS = { from: 15_000, to: 32_000 };
const handedOut = new Set<number>();
/**
 * Jest's processes (its main one, which starts the run's shared n8n, and each worker) each draw
 * from a slice of their own, so that no two processes of a run hand out the same port. Drawn from
 * the whole range, two processes handed out one port: the run's shared n8n stopped at start-up in
 * CI, and 13 files with it. Its log ended as a start whose task broker port is taken ends, to the
 * line (played here: "n8n Task Broker's port … is already in use", exit 1).
 */
const SLICES = 16;
const slice = Number(process.env.JEST_WORKER_ID ?? 0) % SLICES;
const sliceSize = Math.floor((PORTS.to - PORTS.from) / SLICES);

/** A free TCP port on 127.0.0.1 that no outgoing connection will take. */
export async function freePort(): Promise<number> {
	for (;;) {
		const port = PORTS.from + slice * sliceSize + Math.floor(Math.random() * sliceSize);
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		const free = await new Promise<boolean>((resolve) => {
			const server = net.createServer();
			server.once('error', () => resolve(false));
			server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
		});
		if (free) return port;
	}
}

/** Throws a clear error if something already listens on 127.0.0.1:port. */
export async function assertPortFree(port: number, what: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const server = net.createServer();
		server.once('error', () =>
			reject(
				new Error(
					`Port ${port} (${what}) is already in use on 127.0.0.1. Stop whatever uses it and try again.`,
				),
			),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
	});
}

/**
 * Set by the test runs' global set-up (test/harness/jest-global-setup.js): a folder of the run
 * where the first caller of `buildAndPack` builds and packs the package once; every other file
 * of the run (in any jest worker) waits for that tarball and uses it (issue 38: one build per run,
 * not one per end-to-end file).
 */
const RUN_DIR_ENV = 'ERP_TEST_RUN_DIR';

/**
 * Builds the package (`npm run build`) and packs it into `outDir`; returns the tarball path.
 * Within a test run (RUN_DIR_ENV set): once for the whole run, in the run's folder.
 */
export async function buildAndPack(outDir: string, logFile: string, log: Log): Promise<string> {
	const runDir = process.env[RUN_DIR_ENV];
	if (runDir) return await packOncePerRun(path.join(runDir, 'pack'), logFile, log);
	return await buildAndPackNow(outDir, logFile, log);
}

/** The run's tarball: built by the caller that creates `packDir`, awaited by the others. */
async function packOncePerRun(packDir: string, logFile: string, log: Log): Promise<string> {
	const done = path.join(packDir, 'tarball.txt');
	const failed = path.join(packDir, 'failed.txt');
	let mine = false;
	try {
		fs.mkdirSync(packDir);
		mine = true;
	} catch {
		// another file of this run builds it
	}
	if (mine) {
		try {
			const tarball = await buildAndPackNow(packDir, logFile, log);
			fs.writeFileSync(done, tarball);
			return tarball;
		} catch (error) {
			fs.writeFileSync(failed, String((error as Error).message));
			throw error;
		}
	}
	log('waiting for the package this test run builds and packs once');
	const deadline = Date.now() + 15 * MINUTE;
	for (;;) {
		if (fs.existsSync(done)) return fs.readFileSync(done, 'utf8');
		if (fs.existsSync(failed))
			throw new Error(
				`building the package failed in another test file: ${fs.readFileSync(failed, 'utf8')}`,
			);
		if (Date.now() > deadline) throw new Error(`no tarball in ${packDir} after 15 minutes`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

async function buildAndPackNow(outDir: string, logFile: string, log: Log): Promise<string> {
	const env = childEnv(undefined, undefined);
	fs.mkdirSync(outDir, { recursive: true });
	await run('building the package', 'npm', ['run', 'build'], {
		cwd: REPO_DIR,
		env,
		logFile,
		log,
		timeoutMs: 10 * MINUTE,
	});
	const out = await run(
		'packing the package',
		'npm',
		['pack', '--json', '--pack-destination', outDir],
		{
			cwd: REPO_DIR,
			env,
			logFile,
			log,
			timeoutMs: 5 * MINUTE,
		},
	);
	const [{ filename }] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>;
	return path.join(outDir, path.basename(filename));
}

/** Installs the tarball as a community package in `<userFolder>/.n8n/nodes` (replacing any previous copy). */
export async function installPackage(paths: N8nPaths, tarball: string, log: Log): Promise<void> {
	const nodesDir = path.join(paths.userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const packageJson = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(packageJson)) {
		// The file n8n itself writes there before its first community package install.
		fs.writeFileSync(
			packageJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	// Keep the tarball next to the install: nodes/package.json refers to it.
	const kept = path.join(paths.userFolder, path.basename(tarball));
	if (path.resolve(tarball) !== kept) fs.copyFileSync(tarball, kept);
	fs.rmSync(path.join(nodesDir, 'node_modules', PACKAGE_NAME), { recursive: true, force: true });
	// `--legacy-peer-deps`: peers are never resolved, as n8n 2.41 installs a community package
	// (it drops peerDependencies before its `npm install`). Without it npm fetched the metadata of
	// n8n-workflow's whole tree (161 registry requests, 25 s and 8 s of CPU per install, measured),
	// in every end-to-end file and every queue-mode process.
	await run(
		'installing the community package',
		'npm',
		[
			'install',
			kept,
			'--legacy-peer-deps',
			'--omit=peer',
			'--omit=dev',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--package-lock=false',
		],
		{
			cwd: nodesDir,
			env: childEnv(undefined, undefined),
			logFile: paths.setupLog,
			log,
			timeoutMs: 5 * MINUTE,
		},
	);
	if (!fs.existsSync(path.join(nodesDir, 'node_modules', PACKAGE_NAME, 'package.json'))) {
		throw new Error(
			`${PACKAGE_NAME} is not in ${nodesDir}/node_modules after npm install. Log: ${paths.setupLog}`,
		);
	}
}

export type N8nConfig = {
	env: N8nEnv;
	paths: N8nPaths;
	port: number;
	/** Port of n8n's internal task broker (must differ between n8n processes running at once). */
	brokerPort: number;
	/** Set last, over the defaults: e.g. queue mode's database, Redis and encryption key. */
	extraEnv?: Record<string, string>;
};

/** Whether the installed n8n has this backend module (dist/modules/<name>). */
function hasModule(env: N8nEnv, name: string): boolean {
	return fs.existsSync(path.join(path.dirname(env.n8nBin), '..', 'dist', 'modules', name));
}

/** Environment for every n8n process: local only, quiet, no calls home at start-up. */
export function n8nEnvironment(config: N8nConfig): NodeJS.ProcessEnv {
	const url = `http://127.0.0.1:${config.port}/`;
	const env = childEnv(config.env.nodeBinDir, undefined);
	for (const key of Object.keys(env)) {
		// Never inherit the caller's n8n settings (a developer's own N8N_* or DB_* variables).
		if (/^(N8N_|DB_|EXECUTIONS_|WEBHOOK_URL$|GENERIC_TIMEZONE$)/.test(key)) delete env[key];
	}
	return {
		...env,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: config.paths.userFolder,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(config.port),
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: url,
		N8N_WEBHOOK_URL: url,
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(config.brokerPort),
		DB_TYPE: 'sqlite',
		DB_SQLITE_POOL_SIZE: '2',
		// SQLite only (queue mode's PostgreSQL keeps n8n's default): n8n 2.x answers every request
		// 503 "Database is not ready!" while a `SELECT 1` ping of its database waits longer than this
		// (default 5 s). On the test machine, with a dozen n8n processes at once, SQLite's pings took
		// longer during a flash sale's writes: 3 failed in a row, and 2 of 30 orders were still
		// refused after 3 resends each (.ci/run, npm test).
		...((config.extraEnv?.DB_TYPE ?? 'sqlite') === 'sqlite' ? { DB_PING_TIMEOUT_MS: '60000' } : {}),
		GENERIC_TIMEZONE: 'UTC',
		N8N_LOG_LEVEL: 'info',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		// Publishing a workflow goes through an outbox: check it every second, not every 15.
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
		// Community packages: enabled; nothing fetched from n8n's servers or the npm registry.
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		// Offline and quiet.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		// Only where n8n has that module (2.x): 1.x refuses to start on an unknown one.
		...(hasModule(config.env, 'mcp-registry') ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
		...config.extraEnv,
	};
}

/**
 * For an end-to-end test file: n8n installed (the first time: several minutes), a new user folder
 * under the system's temp folder, and this package built, packed and installed in it.
 */
export async function prepareInstance(
	folderPrefix: string,
	log: Log,
	version: string = n8nVersion(),
): Promise<{ env: N8nEnv; userFolder: string; paths: N8nPaths }> {
	log(`preparing Node 24 and n8n ${version} (the first run installs them: ~3 GB, several minutes)`);
	let env: N8nEnv;
	try {
		env = await ensureN8n(log, version);
	} catch (error) {
		throw new Error(
			`Could not install n8n ${version} for the end-to-end tests: ${(error as Error).message}`,
		);
	}
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), folderPrefix));
	const paths = n8nPaths(userFolder);
	log(`building, packing and installing the package (logs in ${userFolder})`);
	await installPackage(
		paths,
		await buildAndPack(path.join(userFolder, 'pack'), paths.setupLog, log),
		log,
	);
	return { env, userFolder, paths };
}

/** Runs an n8n CLI command (e.g. `import:workflow`); resolves with its stdout. */
export async function n8nCli(
	config: N8nConfig,
	args: string[],
	log: Log,
	timeoutMs = 3 * MINUTE,
): Promise<string> {
	// A CLI command starts its own task broker: give it its own port, n8n may be running.
	const brokerPort = await freePort();
	return await run(`n8n ${args[0]}`, config.env.nodeBin, [config.env.n8nBin, ...args], {
		cwd: config.paths.userFolder,
		env: n8nEnvironment({ ...config, brokerPort }),
		logFile: config.paths.setupLog,
		log,
		timeoutMs,
	});
}

/** A credential as `n8n import:credentials` takes it: `data` in plain text, encrypted on import. */
export type CredentialImport = {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
};

/** Imports credentials with the n8n CLI (a file readable by this user only, removed after). */
export async function importCredentials(
	config: N8nConfig,
	credentials: CredentialImport[],
	log: Log,
): Promise<void> {
	const dir = fs.mkdtempSync(path.join(config.paths.userFolder, 'credentials-'));
	try {
		const file = path.join(dir, 'credentials.json');
		fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
		await n8nCli(config, ['import:credentials', `--input=${file}`], log);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** What `n8n execute --rawOutput` reports: the run's data (status, result data, error). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ExecuteResult = any;

/** The run `n8n execute --rawOutput` printed, or undefined when it printed no complete run. */
function parseRun(stdout: string): ExecuteResult | undefined {
	const start = stdout.indexOf('{');
	if (start < 0) return undefined;
	// n8n's own log lines (e.g. 'Registered runner "JS Task Runner"', a timestamp, a colour code)
	// can land inside the printed JSON; they start at the line's first column, which no line of
	// indented JSON does but its opening and closing braces.
	const json = stdout
		.slice(start)
		.split('\n')
		.filter((line) => /^\s/.test(line) || /^[{}]\s*$/.test(line))
		.join('\n');
	try {
		const run = JSON.parse(json);
		return typeof run === 'object' && run !== null && 'data' in run ? run : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Runs a workflow from its Manual Trigger and returns the run: `{ data }`, its run data (`data.
 * resultData.runData`, ...). A run that ends in error is rejected with its error message.
 * n8n 2.x: as the editor runs it, through the REST API of the n8n running at `config.port`
 * (`POST /rest/workflows/:id/run`), read back once n8n has recorded it. A second n8n process on
 * the same database (`n8n execute`) was seen failing on SQLITE_BUSY while that n8n ran, and costs
 * an n8n start (about 20 s of CPU). n8n 1.x, whose run API takes the whole workflow: the CLI.
 */
export async function n8nExecute(
	config: N8nConfig,
	workflowId: string,
	log: Log,
	timeoutMs = 3 * MINUTE,
): Promise<ExecuteResult> {
	if (n8nMajor(config.env.version) >= 2) return await runManually(config, workflowId, timeoutMs);
	return await cliExecute(config, workflowId, log, timeoutMs).catch((error: Error) => {
		// What n8n printed for this run (the setup log from its command on): the error in full.
		const printed = fs.readFileSync(config.paths.setupLog, 'utf8');
		throw new Error(
			`${error.message}\n${printed.slice(printed.lastIndexOf(`--id=${workflowId}`))}`,
		);
	});
}

/** The editor's run of a workflow from its Manual Trigger (see n8nExecute). */
async function runManually(
	config: N8nConfig,
	workflowId: string,
	timeoutMs: number,
): Promise<ExecuteResult> {
	const rest = await ownerSession(`http://127.0.0.1:${config.port}`);
	const workflow = await rest.request<{ nodes: Array<{ name: string; type: string }> }>(
		'GET',
		`/rest/workflows/${workflowId}`,
	);
	const trigger = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (!trigger) throw new Error(`Workflow ${workflowId} has no Manual Trigger to run it from`);
	const started = await rest.request<{ executionId?: string }>(
		'POST',
		`/rest/workflows/${workflowId}/run`,
		{ triggerToStartFrom: { name: trigger.name } },
	);
	if (!started.executionId)
		throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(started)}`);
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await rest.request<{
			finished?: boolean;
			status?: string;
			stoppedAt?: string;
		}>('GET', `/rest/executions/${started.executionId}`);
		if (execution.stoppedAt || !['new', 'running', 'waiting'].includes(String(execution.status)))
			break;
		if (Date.now() > deadline)
			throw new Error(`Workflow ${workflowId} still runs after ${formatDuration(timeoutMs)}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	const data = await rest.executionData(started.executionId);
	const error = data?.resultData?.error;
	if (error) {
		const description = error.description ? ` (${String(error.description)})` : '';
		throw new Error(`Workflow ${workflowId} failed: ${String(error.message)}${description}`);
	}
	return { data };
}

/**
 * `n8n execute --id=<id> --rawOutput`: the run it reports. The run is judged by that report:
 * n8n's CLI can be killed by a signal (SIGSEGV) on its way out after printing a successful run,
 * which is not a failure of the workflow.
 */
async function cliExecute(
	config: N8nConfig,
	workflowId: string,
	log: Log,
	timeoutMs: number,
): Promise<ExecuteResult> {
	const finished = (stdout: string) => {
		const run = parseRun(stdout);
		return run !== undefined && run.data?.resultData?.error === undefined;
	};
	const once = async () =>
		await run(
			'n8n execute',
			config.env.nodeBin,
			[config.env.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'],
			{
				cwd: config.paths.userFolder,
				env: n8nEnvironment({ ...config, brokerPort: await freePort() }),
				logFile: config.paths.setupLog,
				log,
				timeoutMs,
				doneDespiteSignal: finished,
			},
		);
	let stdout = await once();
	// n8n 1.x prints the run through its logger and exits 100 ms after: a large run (1.4 MB,
	// 2,000 articles) was seen cut short on a busy machine. Run again (twice at most), saying so.
	for (
		let again = 1;
		again <= 2 && parseRun(stdout) === undefined && stdout.includes('{');
		again++
	) {
		log(`n8n execute printed a run cut short (${stdout.length} characters): running it again`);
		stdout = await once();
	}
	const result = parseRun(stdout);
	if (result === undefined) throw new Error(`n8n execute printed no run:\n${stdout.slice(-2000)}`);
	return result;
}

export type RunningN8n = {
	url: string;
	pid: number;
	/** Settles when the process has exited (for whatever reason). */
	exited: Promise<void>;
	/** Stops the process (its process group: `signal`, SIGKILL after a grace period). Idempotent. */
	stop(): Promise<void>;
};

/** A program run in the background for a test or a demo (n8n, Redis, PostgreSQL...). */
export type BackgroundSpec = {
	/** For messages, e.g. "n8n worker". */
	name: string;
	command: string;
	args: string[];
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** Its output goes there (appended). */
	logFile: string;
	/** Resolves true once the program answers. */
	ready: () => Promise<boolean>;
	timeoutMs: number;
	/** First signal on stop (default SIGTERM). */
	stopSignal?: NodeJS.Signals;
};

/**
 * Starts a program in its own process group, logs to a file, and waits until `ready`. If this
 * process exits first, the program goes with it.
 */
export async function startBackground(spec: BackgroundSpec): Promise<RunningN8n> {
	fs.mkdirSync(path.dirname(spec.logFile), { recursive: true });
	const out = fs.openSync(spec.logFile, 'a');
	const child = spawn(spec.command, spec.args, {
		cwd: spec.cwd,
		env: spec.env,
		stdio: ['ignore', out, out],
		detached: true,
	});
	fs.closeSync(out);
	const pid = child.pid!;
	const forget = killOnExit(pid);
	let exited: string | undefined;
	const exitPromise = new Promise<void>((resolve) => {
		child.on('exit', (code, signal) => {
			exited = `exit ${code ?? signal}`;
			forget();
			resolve();
		});
	});
	const stop = async () => {
		if (exited) return;
		killGroup(pid, spec.stopSignal ?? 'SIGTERM');
		const killer = setTimeout(() => killGroup(pid, 'SIGKILL'), 20_000);
		await exitPromise;
		clearTimeout(killer);
		killGroup(pid, 'SIGKILL'); // a child (n8n's task runner), if it outlived the program
	};

	const deadline = Date.now() + spec.timeoutMs;
	for (;;) {
		if (exited) {
			throw new Error(
				`${spec.name} stopped during start-up (${exited}). Log: ${spec.logFile}\n${tail(spec.logFile, 30)}`,
			);
		}
		if (await spec.ready().catch(() => false)) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(
				`${spec.name} did not become ready within ${spec.timeoutMs / 1000} s. Log: ${spec.logFile}\n${tail(spec.logFile, 30)}`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	return { url: '', pid, exited: exitPromise, stop };
}

/** True when `url` answers 2xx within 2 s. */
export async function answersOk(url: string): Promise<boolean> {
	const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
	return response.ok;
}

/**
 * Starts an n8n process and waits until it answers its readiness check: `n8n start` by default
 * (/healthz/readiness on its port); `command` runs another, e.g. `['webhook']` or
 * `['worker', '--concurrency=10']` with `healthUrl` (a worker answers on QUEUE_HEALTH_CHECK_PORT).
 */
export async function startN8n(
	config: N8nConfig,
	timeoutMs = 4 * MINUTE,
	options: { command?: string[]; healthUrl?: string } = {},
): Promise<RunningN8n> {
	const url = `http://127.0.0.1:${config.port}`;
	const command = options.command ?? ['start'];
	fs.mkdirSync(config.paths.userFolder, { recursive: true });
	const running = await startBackground({
		name: `n8n ${command[0]}`,
		command: config.env.nodeBin,
		args: [config.env.n8nBin, ...command],
		cwd: config.paths.userFolder,
		env: n8nEnvironment(config),
		logFile: config.paths.n8nLog,
		// `n8n start`: ready once its REST API answers too (n8n 1.x reports ready before that); other
		// commands have no REST API (a webhook processor answers /healthz/readiness only).
		ready: async () =>
			options.healthUrl
				? await answersOk(options.healthUrl)
				: (await answersOk(`${url}/healthz/readiness`)) &&
					(command[0] !== 'start' || (await answersOk(`${url}/rest/settings`))),
		timeoutMs,
	});
	return { ...running, url };
}

/** The owner's signed-in REST client of each n8n this process talks to, by URL. */
const sessions = new Map<string, N8nRest>();

/** The owner's REST client of the n8n at `url`: this process's session, or a new sign-in. */
export async function ownerSession(url: string): Promise<N8nRest> {
	const known = sessions.get(url);
	if (known) return known;
	const rest = new N8nRest(url);
	await rest.signInAsOwner();
	return rest;
}

/** Takes `rest`, signed in by another process, as this process's session of its n8n. */
export function shareSession(rest: N8nRest): N8nRest {
	sessions.set(rest.url, rest);
	return rest;
}

/** An answer to ask again for (see N8nRest.request). */
const ASK_AGAIN = Symbol('n8n: ask again');

/** n8n's REST API (`/rest`), signed in as the owner with the session cookie. */
export class N8nRest {
	/** The session cookie is bound to this header's value. */
	private readonly browserId = 'n8n-nodes-erp-scripts';

	/** `cookie`: a session of the owner's already signed in (`session`), else none yet. */
	constructor(
		readonly url: string,
		private cookie = '',
	) {}

	/** The owner's session cookie, once signed in: for another process on the same n8n. */
	get session(): string {
		return this.cookie;
	}

	async request<T>(method: string, route: string, body?: unknown): Promise<T> {
		// n8n answers 503 "Database is not ready!" while its database connection is being (re)made,
		// seen on a machine busy with several n8n processes: asked again for up to a minute.
		// A keep-alive connection n8n closed as the request went out ("other side closed", or
		// "read ECONNRESET", seen in a full run; no answer) is tried again on a new one, as a
		// browser does.
		for (let attempt = 1; ; attempt++) {
			const answer: T | typeof ASK_AGAIN = await this.requestOnce<T>(method, route, body).catch(
				(error: Error) => {
					const code = (error.cause as { code?: string } | undefined)?.code;
					if ((code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') && attempt < 3) return ASK_AGAIN;
					throw error;
				},
			);
			if (answer !== ASK_AGAIN) return answer as T;
			if (attempt === 60)
				throw new Error(
					`n8n ${method} ${route} answered 503 "Database is not ready!" for a minute`,
				);
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
	}

	private async requestOnce<T>(
		method: string,
		route: string,
		body?: unknown,
	): Promise<T | typeof ASK_AGAIN> {
		const response = await fetch(`${this.url}${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(60_000),
		});
		const setCookie = response.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (setCookie) this.cookie = setCookie.split(';')[0];
		const text = await response.text();
		if (response.status === 503 && text.includes('Database is not ready')) return ASK_AGAIN;
		if (!response.ok) {
			throw new Error(`n8n ${method} ${route} answered ${response.status}: ${text.slice(0, 500)}`);
		}
		const parsed = text ? JSON.parse(text) : undefined;
		return parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed;
	}

	/**
	 * Sets the owner up on a fresh instance, or signs in on an instance already set up. n8n allows
	 * 5 sign-ins a minute per user: a process signs in once per n8n (`ownerSession`).
	 */
	async signInAsOwner(owner = OWNER): Promise<'created' | 'signed-in'> {
		sessions.set(this.url, this);
		const settings = await this.request<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>(
			'GET',
			'/rest/settings',
		);
		if (settings.userManagement?.showSetupOnFirstLoad) {
			await this.request<unknown>('POST', '/rest/owner/setup', owner);
			return 'created';
		}
		await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		return 'signed-in';
	}

	/**
	 * Publishes (activates) a version of the workflow (default: the current one): its triggers
	 * and webhooks go live.
	 * n8n 2.x publishes through an outbox, asynchronously: this waits until it is done. Older n8n
	 * (1.123, 2.33) has no outbox: its activate answers once the triggers are live.
	 */
	async activate(workflowId: string, versionId?: string): Promise<void> {
		versionId ??= (
			await this.request<{ versionId: string }>('GET', `/rest/workflows/${workflowId}`)
		).versionId;
		await this.request('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
		await this.waitForPublication(workflowId, 'published');
	}

	/** Unpublishes (deactivates) the workflow and waits until its triggers are removed. */
	async deactivate(workflowId: string): Promise<void> {
		await this.request('POST', `/rest/workflows/${workflowId}/deactivate`, {});
		await this.waitForPublication(workflowId, 'not_published');
	}

	private async waitForPublication(
		workflowId: string,
		wanted: 'published' | 'not_published',
	): Promise<void> {
		const deadline = Date.now() + MINUTE;
		for (;;) {
			const status = await this.request<{ status: string; triggers: unknown }>(
				'GET',
				`/rest/workflows/${workflowId}/publication-status`,
			).catch(async (error: Error) => {
				if (!/ answered 404/.test(error.message)) throw error;
				// No outbox in this n8n: (de)activation was done when its request answered.
				const { active } = await this.request<{ active: boolean }>(
					'GET',
					`/rest/workflows/${workflowId}`,
				);
				return { status: active ? 'published' : 'not_published', triggers: undefined };
			});
			if (status.status === wanted) return;
			if (status.status === 'failed' || status.status === 'partial') {
				throw new Error(
					`Publishing workflow ${workflowId} failed: ${JSON.stringify(status.triggers)}`,
				);
			}
			if (Date.now() > deadline) {
				throw new Error(
					`Workflow ${workflowId} is still "${status.status}" after 60 s (wanted "${wanted}")`,
				);
			}
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	/** Executions of a workflow, newest first: id, status ('success', 'error', ...), mode. */
	async executions(
		workflowId: string,
		limit = 50,
	): Promise<Array<{ id: string; status: string; mode: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await this.request<{
			results: Array<{ id: string; status: string; mode: string }>;
		}>('GET', `/rest/executions?filter=${filter}&limit=${limit}`);
		return data.results;
	}

	/**
	 * An execution's data as n8n stored it (`resultData.runData`, ...), read from n8n's "flatted"
	 * form (the `flatted` package n8n writes it with). What the editor shows of a finished run.
	 */
	async executionData(executionId: string): Promise<ExecuteResult> {
		const execution = await this.request<{ data?: string }>(
			'GET',
			`/rest/executions/${executionId}`,
		);
		return typeof execution.data === 'string' ? parseFlatted(execution.data) : undefined;
	}

	/**
	 * The error messages an execution recorded (its run data, read from n8n's flattened form), for
	 * a test's failure message: which node failed and why.
	 */
	async executionErrors(executionId: string): Promise<string[]> {
		const execution = await this.request<{ data?: string }>(
			'GET',
			`/rest/executions/${executionId}`,
		);
		if (typeof execution.data !== 'string') return [];
		// n8n stores run data "flatted": a JSON array whose strings are referenced by index.
		const table = JSON.parse(execution.data) as unknown[];
		const text = (value: unknown) =>
			typeof value === 'string' && /^\d+$/.test(value) && typeof table[Number(value)] === 'string'
				? (table[Number(value)] as string)
				: undefined;
		const messages = new Set<string>();
		for (const entry of table) {
			if (!entry || typeof entry !== 'object' || Array.isArray(entry)) continue;
			const record = entry as Record<string, unknown>;
			const message = text(record.message);
			if (message === undefined || text(record.name) === undefined) continue;
			const node = text((table[Number(record.node)] as Record<string, unknown> | undefined)?.name);
			const description = text(record.description);
			messages.add(`${node ? `${node}: ` : ''}${message}${description ? ` (${description})` : ''}`);
		}
		return [...messages];
	}
}

/**
 * For the end-to-end tests: `track` wraps a test body and remembers a failure; `cleanUp` (in
 * `after`) then keeps n8n's user folder and prints the last lines of `logFile`, or removes the
 * folder when every tracked body passed.
 */
export function keepFilesOnFailure(log: Log) {
	let failed = false;
	return {
		/** Whether a tracked test body failed so far. */
		anyFailed: (): boolean => failed,
		track: (fn: () => Promise<void>) => async (): Promise<void> => {
			try {
				await fn();
			} catch (error) {
				failed = true;
				throw error;
			}
		},
		cleanUp(userFolder: string | undefined, logFile: string): void {
			if (!userFolder) return;
			if (failed) {
				log(
					`a test failed; n8n's data and logs are kept in ${userFolder}. Last lines of ${path.basename(logFile)}:\n${tail(logFile, 40)}`,
				);
			} else {
				fs.rmSync(userFolder, { recursive: true, force: true });
			}
		},
	};
}

/** Whether the end-to-end tests are skipped: ERP_SKIP_E2E=1, outside CI only. */
export function e2eSkipped(): boolean {
	return !process.env.CI && process.env.ERP_SKIP_E2E === '1';
}

/**
 * For the end-to-end test files, at load: whether to skip them (ERP_SKIP_E2E=1, outside CI, for
 * quick local loops only; said loudly), and when not, exit normally on SIGINT/SIGTERM (Ctrl-C,
 * the runner's timeout) so that the process groups of n8n and its commands are killed.
 */
export function skipE2e(): boolean {
	const skip = e2eSkipped();
	if (skip)
		process.stderr.write(
			'\n*** SKIPPED: end-to-end tests in real n8n (ERP_SKIP_E2E=1). CI never skips them. ***\n\n',
		);
	else
		for (const signal of ['SIGINT', 'SIGTERM'] as const)
			process.once(signal, () => process.exit(130));
	return skip;
}
