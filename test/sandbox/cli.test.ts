/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- this test spawns the sandbox CLI */
// `npm run sandbox` (tsx sandbox/cli.ts): starts, prints the base URL and demo keys, serves /v1, stops on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { it } from '@jest/globals';
import { DEMO_KEYS, DEMO_OAUTH_CLIENT, call, errorCode } from '../../sandbox';

const root = path.resolve(__dirname, '../..');

it('starts from the command line on a free port, answers the API and stops on SIGTERM', async () => {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--articles', '120'],
		{
			cwd: root,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
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
	} finally {
		child.kill('SIGTERM');
	}
	assert.equal(await exited, 0);
});
