/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- this test runs the guides' shell commands */
// Every guide's commands, run as written (docs/*.md, see ./markdown.ts), and the answers the
// guide says you will see. The guide's fixed ports are moved to free ones; `$BASE` and `$KEY`
// point at a sandbox that follows the contract, as `npm start`'s does, and so does port 4010
// (`npm start`'s sandbox) in a command.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, it } from '@jest/globals';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { jsonLines, mismatch, stepsOf, type Step } from './markdown';

const ROOT = path.resolve(__dirname, '../..');
const DOCS = path.join(ROOT, 'docs');
/** The ports the guides name, moved to free ones for the test. */
const GUIDE_PORTS = [4020, 9000];
/** `npm start`'s sandbox port: a command that names it reaches the contract sandbox. */
const NPM_START_SANDBOX_PORT = 4010;

const freePort = () =>
	new Promise<number>((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});

const listening = (port: number) =>
	new Promise<boolean>((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => (socket.destroy(), resolve(true)));
		socket.once('error', () => resolve(false));
	});

async function waitFor<T>(
	what: string,
	ms: number,
	read: () => Promise<T | undefined>,
): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await read();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

type Server = { child: ChildProcess; output: string; exited: Promise<void> };

function startShell(command: string, env: NodeJS.ProcessEnv): Server {
	const child = spawn('bash', ['-c', command], {
		cwd: ROOT,
		env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const server: Server = {
		child,
		output: '',
		exited: new Promise((resolve) => child.once('exit', () => resolve())),
	};
	child.stdout?.on('data', (chunk: Buffer) => (server.output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (server.output += chunk.toString()));
	return server;
}

async function stop(server: Server): Promise<void> {
	if (server.child.exitCode === null && server.child.pid !== undefined) {
		try {
			process.kill(-server.child.pid, 'SIGTERM');
		} catch {
			// already gone
		}
	}
	await server.exited;
}

async function runCommand(command: string, env: NodeJS.ProcessEnv): Promise<string> {
	const server = startShell(command, env);
	const code = await new Promise<number | null>((resolve) => server.child.once('exit', resolve));
	assert.equal(code, 0, `\`${command}\` exited with ${code}: ${server.output}`);
	return server.output;
}

/** Runs one guide's steps in order; servers are stopped at the end. */
async function runGuide(file: string, steps: Step[]): Promise<number> {
	const contract = await startSandbox({ port: 0 });
	const ports = new Map<number, number>();
	for (const port of GUIDE_PORTS) ports.set(port, await freePort());
	ports.set(NPM_START_SANDBOX_PORT, Number(new URL(contract.url).port));
	const moved = (text: string) =>
		text.replace(/\b(4010|4020|9000)\b/g, (port) => String(ports.get(Number(port))));
	const env = { ...process.env, BASE: contract.baseUrl, KEY: DEMO_KEYS.full };
	const servers = new Map<string, Server>();
	let checked = 0;
	try {
		for (const step of steps) {
			const where = `${file}:${step.line}`;
			if (step.kind === 'server') {
				const previous = servers.get(step.name);
				if (previous) await stop(previous);
				const server = startShell(moved(step.command), env);
				servers.set(step.name, server);
				const port = [...ports.values()].find((p) => moved(step.command).includes(String(p)));
				assert.ok(port, `${where}: a server command names none of the ports ${GUIDE_PORTS}`);
				await waitFor(`${where} to listen on ${port}: ${server.output}`, 60_000, async () =>
					(await listening(port)) ? true : undefined,
				);
			} else if (step.kind === 'run') {
				const output = await runCommand(moved(step.command), env);
				if (step.answer === undefined) continue;
				const problem = mismatch(JSON.parse(moved(step.answer)), JSON.parse(output));
				assert.equal(problem, undefined, `${where}: ${problem}\n${output}`);
				checked++;
			} else {
				const server = servers.get(step.name);
				assert.ok(server, `${where}: no server named ${step.name} runs`);
				const expected = jsonLines(moved(step.expected));
				await waitFor(`${where}: ${step.name} to print what the guide shows`, 10_000, async () => {
					const lines = jsonLines(
						server.output
							.split('\n')
							.filter((l) => /^[{[]/.test(l))
							.join('\n'),
					);
					let next = 0;
					for (const line of lines)
						if (next < expected.length && !mismatch(expected[next], line)) next++;
					return next === expected.length ? true : undefined;
				});
				checked++;
			}
		}
	} finally {
		for (const server of servers.values()) await stop(server);
		await contract.close();
	}
	return checked;
}

const guides = fs
	.readdirSync(DOCS)
	.filter((name) => name.endsWith('.md'))
	.map((name) => ({ name, steps: stepsOf(fs.readFileSync(path.join(DOCS, name), 'utf8')) }))
	.filter(({ steps }) => steps.length > 0);

describe('shortened answers (controls: what must not match)', () => {
	it('match only the keys, the texts and the list elements they show', () => {
		const answer = { items: [{ id: 'a1' }, { id: 'a2' }, '…'], meta: { next: 'sha256=…' } };
		const actual = {
			items: [{ id: 'a1', x: 1 }, { id: 'a2' }, { id: 'a3' }],
			meta: { next: 'sha256=ff' },
			y: 2,
		};
		assert.equal(mismatch(answer, actual), undefined);
		assert.match(
			mismatch(answer, { ...actual, items: actual.items.slice(0, 2) }) ?? '',
			/more than 2/,
		);
		assert.match(
			mismatch(answer, { ...actual, meta: { next: 'sha512=ff' } }) ?? '',
			/\$\.meta\.next/,
		);
		assert.match(mismatch({ items: [{ id: 'a1' }] }, actual) ?? '', /exactly 1/);
		assert.match(mismatch({ z: 1 }, actual) ?? '', /\$\.z: missing/);
	});
});

describe('the guides, run as written', () => {
	it('finds the guides with commands (Connecting to your ERP among them)', () => {
		assert.ok(
			guides.some(({ name }) => name === 'connecting.md'),
			guides.map((g) => g.name).join(),
		);
	});

	for (const { name, steps } of guides) {
		it(`docs/${name}: every command runs and answers as the page shows`, async () => {
			const checked = await runGuide(`docs/${name}`, steps);
			const answers = steps.filter(
				(s) => s.kind === 'output' || (s.kind === 'run' && s.answer),
			).length;
			assert.equal(checked, answers);
			assert.ok(checked > 0, `docs/${name} shows no answer to check`);
		}, 180_000);
	}
});
