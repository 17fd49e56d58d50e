/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// The wall time of the whole `npm test`, run once as a child process after the other figures.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import type { FigureContext } from './types';

export interface TestTimeResult {
	wallMs: number;
	exitCode: number | null;
	/** The suite did not finish within TIMEOUT_MS and was stopped. */
	timedOut: boolean;
	/** From the test runner's summary (`# tests`, `# pass`, `# fail`), when it printed one. */
	tests?: number;
	pass?: number;
	fail?: number;
	/** The `not ok` lines of the runner's output (failed tests and files), when the run did not pass. */
	failures?: string[];
	/** The end of the output when the run did not pass. */
	tail?: string;
}

const REPO = path.join(__dirname, '..', '..');
/** A suite that hangs (a leftover handle) must not hang the benchmark. */
export const TIMEOUT_MS = 10 * 60 * 1000;

export async function runTestTime(context: FigureContext): Promise<TestTimeResult> {
	context.progress('npm test: running the whole suite...');
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const start = performance.now();
	// Its own process group, so that a timeout stops npm, the test runner and every test file.
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- runs `npm test` to time it
	const child = spawn(npm, ['test'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
	}, TIMEOUT_MS);
	const exitCode = await new Promise<number | null>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', (code) => resolve(code));
	}).finally(() => clearTimeout(timer));
	const wallMs = performance.now() - start;
	const count = (name: string) => {
		const match = new RegExp(`^# ${name} (\\d+)`, 'm').exec(output) ?? new RegExp(`^ℹ ${name} (\\d+)`, 'm').exec(output);
		return match ? Number(match[1]) : undefined;
	};
	const result: TestTimeResult = { wallMs, exitCode, timedOut, tests: count('tests'), pass: count('pass'), fail: count('fail') };
	if (exitCode !== 0) {
		result.failures = output.split('\n').filter((line) => /^\s*not ok \d+ - /.test(line)).map((line) => line.trim());
		result.tail = output.slice(-2000);
	}
	context.progress(`npm test: ${(wallMs / 1000).toFixed(1)} s, exit ${exitCode}${timedOut ? ' (timed out, stopped)' : ''}`);
	return result;
}
