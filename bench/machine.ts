/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// What the figures were measured on.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export interface Machine {
	cpu: string;
	cores: number;
	memoryGb: number;
	node: string;
	os: string;
	commit: string;
	/** The working tree differs from the commit. */
	dirty: boolean;
}

function git(args: string[]): string | undefined {
	try {
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- reads the commit measured
		return execFileSync('git', args, { cwd: path.join(__dirname, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
	} catch {
		return undefined;
	}
}

export function describeMachine(): Machine {
	const cpus = os.cpus();
	return {
		cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
		cores: cpus.length,
		memoryGb: Math.round(os.totalmem() / 1024 ** 3),
		node: process.version,
		os: `${os.type()} ${os.release()} ${os.arch()}`,
		commit: git(['rev-parse', '--short', 'HEAD']) ?? 'unknown',
		dirty: (git(['status', '--porcelain']) ?? '') !== '',
	};
}
