/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a dev script that runs npm and tar, not a node */
/**
 * `npm run scan`: n8n's own community-package scanner (`@n8n/scan-community-package`), run
 * offline. `npx @n8n/scan-community-package <name>` works only on a published package: it
 * checks npm provenance, downloads the attested GitHub source and the tarball, and lints both
 * with `analyzePackage`. This script runs the same two lints on this checkout:
 * - the source leg: the repository, with the scanner's `SOURCE_FILE_PATTERNS`;
 * - the tarball leg: `npm pack` of the current build, unpacked, with `**\/*.js` and
 *   `package.json` (the patterns `analyzePackageByName` uses for the tarball).
 * Provenance cannot be checked before publishing; the publish workflow provides it.
 *
 * A control leg comes first: a package with known violations must fail, so a scanner that
 * silently passes everything (a broken plugin, patterns that match nothing) fails this script.
 * Needs `npm run build` first. Exits non-zero on any error.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

type ScanResult = { passed: boolean; message?: string; details?: string };
type Scanner = {
	analyzePackage(dir: string, patterns?: string[]): Promise<ScanResult>;
	SOURCE_FILE_PATTERNS: string[];
};

const ROOT = path.resolve(__dirname, '..');
/** The scanner's module, as the package ships it (an untyped ES module, no `exports` map). */
const SCANNER_MODULE = '@n8n/scan-community-package/scanner/scanner.mjs';
const say = (line: string) => process.stdout.write(`${line}\n`);
/** The tarball leg's patterns, as in the scanner's `analyzePackageByName`. */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];
/** The files each leg must at least lint, so that a pattern matching nothing cannot pass. */
const MUST_LINT = {
	source: [
		'package.json',
		'nodes/Erp/Erp.node.ts',
		'nodes/ErpTrigger/ErpTrigger.node.ts',
		'nodes/ErpPollingTrigger/ErpPollingTrigger.node.ts',
		'credentials/ErpApi.credentials.ts',
		'credentials/ErpOAuth2Api.credentials.ts',
	],
	tarball: [
		'package.json',
		'dist/nodes/Erp/Erp.node.js',
		'dist/nodes/ErpTrigger/ErpTrigger.node.js',
		'dist/nodes/ErpPollingTrigger/ErpPollingTrigger.node.js',
		'dist/credentials/ErpApi.credentials.js',
		'dist/credentials/ErpOAuth2Api.credentials.js',
	],
};

const scannerRequire = createRequire(require.resolve('@n8n/scan-community-package/package.json'));
/** The scanner's own copy of fast-glob. */
const glob = scannerRequire('fast-glob') as typeof import('fast-glob');
// The scanner makes a temporary folder when imported (for its by-name download); removed at exit.
(scannerRequire('tmp') as { setGracefulCleanup(): void }).setGracefulCleanup();

/** The files `analyzePackage` lints for these patterns (the same glob call as in the scanner). */
function filesLinted(dir: string, patterns: string[]): string[] {
	return glob.sync(patterns, { cwd: dir, ignore: ['node_modules/**', '**/package-lock.json'] });
}

function run(command: string, args: string[], cwd: string): string {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}${result.stdout}`);
	}
	return result.stdout;
}

/** `npm pack` into a temporary folder, unpacked as the scanner does (`tar --strip-components=1`). */
function packAndUnpack(tmp: string): string {
	const packed = JSON.parse(
		run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT),
	) as Array<{ filename: string }>;
	const dir = path.join(tmp, 'package');
	fs.mkdirSync(dir);
	run('tar', ['-xzf', path.join(tmp, packed[0].filename), '-C', dir, '--strip-components=1'], tmp);
	return dir;
}

/** A package with a console call, `process.env` and a runtime dependency, in scanned paths. */
function writeControlPackage(dir: string): void {
	fs.mkdirSync(path.join(dir, 'nodes/Bad'), { recursive: true });
	const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	packageJson.dependencies = { axios: '^1.0.0' };
	fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(packageJson, null, 2));
	fs.writeFileSync(
		path.join(dir, 'nodes/Bad/Bad.node.js'),
		"'use strict';\nconsole.log(process.env.SECRET);\n",
	);
}

async function leg(
	scanner: Scanner,
	name: string,
	dir: string,
	patterns: string[],
	mustLint: string[],
): Promise<boolean> {
	const files = filesLinted(dir, patterns);
	const missing = mustLint.filter((file) => !files.includes(file));
	const result = await scanner.analyzePackage(dir, patterns);
	const verdict = result.passed && missing.length === 0 ? 'passed' : 'FAILED';
	say(`== ${name} leg (${patterns.join(', ')}): ${files.length} files, ${verdict}`);
	if (missing.length > 0) say(`   not linted, but must be: ${missing.join(', ')}`);
	if (!result.passed) say(`   ${result.message}\n${result.details ?? ''}`);
	return result.passed && missing.length === 0;
}

async function main(): Promise<number> {
	const scanner = (await import(SCANNER_MODULE)) as Scanner;
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'erp-scan-'));
	try {
		const control = path.join(tmp, 'control');
		writeControlPackage(control);
		const controlResult = await scanner.analyzePackage(control, TARBALL_FILE_PATTERNS);
		const controlFailed =
			!controlResult.passed &&
			/no-console/.test(controlResult.details ?? '') &&
			/no-restricted-globals/.test(controlResult.details ?? '') &&
			/no-runtime-dependencies/.test(controlResult.details ?? '');
		say(
			`== control leg (a package with known violations): ${controlFailed ? 'rejected, as it must be' : 'NOT REJECTED'}`,
		);
		if (!controlFailed) {
			say(`   the scanner cannot be trusted: ${JSON.stringify(controlResult)}`);
			return 1;
		}

		const sourceOk = await leg(
			scanner,
			'source',
			ROOT,
			scanner.SOURCE_FILE_PATTERNS,
			MUST_LINT.source,
		);
		const tarballOk = await leg(
			scanner,
			'tarball',
			packAndUnpack(tmp),
			TARBALL_FILE_PATTERNS,
			MUST_LINT.tarball,
		);
		const ok = sourceOk && tarballOk;
		say(ok ? "n8n's scanner: both legs pass" : "n8n's scanner: FAILED");
		return ok ? 0 : 1;
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`${String(error instanceof Error ? (error.stack ?? error) : error)}\n`);
		process.exit(1);
	},
);
