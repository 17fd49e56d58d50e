/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- this test spawns the sandbox CLI */
// `npm run sandbox` (tsx sandbox/cli.ts): starts, prints the base URL and demo keys, serves /v1, stops on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { it } from '@jest/globals';
import { DEMO_KEYS, DEMO_OAUTH_CLIENT, call, errorCode } from '../../sandbox';

const root = path.resolve(__dirname, '../..');

/** Starts the CLI with `args`, runs `check` with its base URL and output, then stops it; its exit code. */
async function withCli(
	args: string[],
	check: (baseUrl: string, out: string) => Promise<void>,
): Promise<number | null> {
	const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', ...args], {
		cwd: root,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	try {
		let out = '';
		const baseUrl = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no base URL printed: ${out}`)), 20000);
			child.stdout.on('data', (chunk: Buffer) => {
				out += chunk.toString();
				const m = /Base URL:\s+(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
				if (m) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
			child.on('exit', () => reject(new Error(`exited early: ${out}`)));
		});
		await check(baseUrl, out);
	} finally {
		child.kill('SIGTERM');
	}
	return await exited;
}

it('starts from the command line on a free port, answers the API and stops on SIGTERM', async () => {
	const code = await withCli(['--port', '0', '--articles', '120'], async (baseUrl, out) => {
		for (const s of [DEMO_KEYS.full, DEMO_KEYS.readonly, DEMO_OAUTH_CLIENT.clientId])
			assert.ok(out.includes(s), s);
		const r = await call(baseUrl, 'GET', '/articles?limit=100');
		assert.equal(r.status, 200);
		assert.equal(r.json.pagination.total, 120);
		assert.equal(r.headers['ratelimit-limit'], '100');
		assert.equal(
			errorCode(await call(baseUrl, 'GET', '/articles', { key: 'sk_test_wrong' })),
			'invalid_api_key',
		);
	});
	assert.equal(code, 0);
});

it("plays the README's list variant: starting_after, per_page, items, meta.next (and ignores cursor and limit)", async () => {
	const flags = ['--cursor-param', 'starting_after', '--page-size-param', 'per_page'];
	const paths = ['--items-path', 'items', '--next-cursor-path', 'meta.next'];
	const code = await withCli(['--port', '0', ...flags, ...paths], async (baseUrl, out) => {
		assert.match(out, /Conventions:.*starting_after/);
		const ids = async (query: string) => {
			const r = await call(baseUrl, 'GET', `/articles?${query}`);
			assert.equal(r.status, 200, r.text);
			return (r.json.items as Array<{ id: string }>).map((a) => a.id);
		};
		const first = await call(baseUrl, 'GET', '/articles?limit=2');
		assert.equal(first.json.items.length, 20, 'limit is ignored: the default page');
		assert.deepEqual(first.json.meta, { total: 250, next: 'art_00000020' });
		assert.deepEqual(await ids('per_page=2&starting_after=art_00000002'), [
			'art_00000003',
			'art_00000004',
		]);
		assert.deepEqual((await ids('limit=2&cursor=art_00000002')).slice(0, 2), [
			'art_00000001',
			'art_00000002',
		]);
	});
	assert.equal(code, 0);
});
