/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- this test makes a certificate with openssl and runs the workflows in a child process */
/**
 * TLS 1.3 minimum (spec: "TLS 1.3 is required"; limits table: minimum TLS version 1.3). Two
 * HTTPS servers with a certificate made at test time by the openssl CLI (tls-servers.ts, nothing
 * committed) front the sandbox: one offers only TLS 1.2, one offers TLS 1.3. The workflows run through n8n-core's
 * engine in a child process that trusts the certificate through NODE_EXTRA_CA_CERTS, as an n8n
 * administrator would configure it (see tls-workflows.ts): the product gets no switch that skips
 * certificate checks. Each TLS 1.2-only server is used by one call only, so its connection count
 * is that call's attempts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import { withTlsMinimum } from '../../nodes/shared/tls';
import { DEMO_KEYS, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { makeCertificate, startFront } from './tls-servers';
import type { Front, TestCertificate } from './tls-servers';
import type { TlsJob, TlsResults } from './tls-workflows';

/** Runs tls-workflows.ts with the certificate trusted; its outcomes by name. */
async function runWorkflows(job: TlsJob, caFile: string): Promise<TlsResults> {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', path.join(__dirname, 'tls-workflows.ts')],
		{
			cwd: path.join(__dirname, '..', '..'),
			// Without JEST_WORKER_ID: the child reports its leak findings instead of hooking jest.
			env: {
				...process.env,
				JEST_WORKER_ID: undefined,
				NODE_EXTRA_CA_CERTS: caFile,
				TLS_JOB: JSON.stringify(job),
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	const line = stdout.split('\n').find((l) => l.startsWith('TLS-RESULT '));
	assert.ok(code === 0 && line, `tls-workflows.ts failed (exit ${code}):\n${stderr}`);
	return JSON.parse(line.slice('TLS-RESULT '.length)) as TlsResults;
}

const refusal = (front: Front) =>
	`The ERP server at ${front.origin} does not offer TLS 1.3, which the ERP API requires`;

let dir: string;
let sandbox: SandboxHandle;
let tls: TestCertificate;
let cert: Buffer;
let tls13: Front;
const tls12 = {} as Record<keyof TlsJob['tls12'], Front>;
let results: TlsResults;
/** Each TLS 1.2-only server's connections and completed handshakes once the workflows ran. */
const attempts = {} as Record<keyof TlsJob['tls12'], { connections: number; handshakes: number }>;

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'erp-tls-'));
	tls = makeCertificate(dir);
	cert = tls.cert;
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED });
	tls13 = await startFront(sandbox.url, tls, 'TLSv1.3');
	for (const name of ['node', 'oauth', 'credentialTest', 'trigger'] as const) {
		tls12[name] = await startFront(sandbox.url, tls, 'TLSv1.2');
	}
	results = await runWorkflows(
		{
			tls13: tls13.baseUrl,
			tls12: {
				node: tls12.node.baseUrl,
				oauth: tls12.oauth.baseUrl,
				credentialTest: tls12.credentialTest.baseUrl,
				trigger: tls12.trigger.baseUrl,
			},
		},
		tls.certFile,
	);
	for (const [name, front] of Object.entries(tls12)) {
		attempts[name as keyof TlsJob['tls12']] = {
			connections: front.connections,
			handshakes: front.protocols.length,
		};
	}
}, 180_000);

afterAll(async () => {
	for (const front of [tls13, ...Object.values(tls12)]) await front?.close();
	await sandbox?.close();
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('TLS 1.3 minimum on https Base URLs', () => {
	test('withTlsMinimum asks for TLS 1.3 on https only, keeping other agent options', () => {
		assert.deepEqual(withTlsMinimum({ url: 'https://erp.example.com/v1/articles' }).agentOptions, {
			minVersion: 'TLSv1.3',
		});
		assert.deepEqual(
			withTlsMinimum({ url: '/articles', baseURL: 'https://erp.example.com/v1', agentOptions: { keepAlive: true } })
				.agentOptions,
			{ keepAlive: true, minVersion: 'TLSv1.3' },
		); // prettier-ignore
		const plain = { url: 'http://127.0.0.1:4010/v1/articles' };
		assert.equal(withTlsMinimum(plain), plain);
	});

	test('control: the TLS 1.2-only server answers a plain client that has no minimum', async () => {
		assert.equal(tls12.node.connections, attempts.node.connections);
		const answer = await new Promise<{ status?: number; protocol: string }>((resolve, reject) => {
			https
				.get(
					`${tls12.node.baseUrl}/articles?limit=1`,
					{ ca: cert, headers: { authorization: `Bearer ${DEMO_KEYS.full}` }, agent: false },
					(res) => {
						const protocol = String((res.socket as TLSSocket).getProtocol());
						res.resume();
						res.on('end', () => resolve({ status: res.statusCode, protocol }));
					},
				)
				.on('error', reject);
		});
		assert.deepEqual(answer, { status: 200, protocol: 'TLSv1.2' });
		assert.equal(tls12.node.connections, attempts.node.connections + 1, 'the counter counts');
	});

	test('ERP node, API key: the TLS 1.2-only server is refused once, with the cause named', () => {
		const outcome = results.nodeTls12;
		assert.equal(outcome.success, false);
		assert.equal(outcome.message, refusal(tls12.node));
		assert.equal(outcome.code, 'tls_version_unsupported');
		assert.match(String(outcome.description), /TLS handshake, before any data was sent/);
		assert.deepEqual(attempts.node, { connections: 1, handshakes: 0 }, 'one attempt, not retried');
	});

	test('ERP node, API key: the TLS 1.3 server works', () => {
		assert.deepEqual(results.nodeTls13, { success: true, items: 3 });
		assert.ok(tls13.protocols.length > 0);
		assert.deepEqual([...new Set(tls13.protocols)], ['TLSv1.3']);
	});

	test('ERP node, OAuth2: refused on TLS 1.2 only, works on TLS 1.3', () => {
		assert.equal(results.oauthTls12.success, false);
		assert.equal(results.oauthTls12.message, refusal(tls12.oauth));
		assert.equal(results.oauthTls12.code, 'tls_version_unsupported');
		assert.deepEqual(attempts.oauth, { connections: 1, handshakes: 0 }, 'not retried');
		assert.deepEqual(results.oauthTls13, { success: true, items: 3 });
	});

	test('credential test (API key): fails on TLS 1.2 only, succeeds on TLS 1.3', () => {
		assert.equal(results.credentialTestTls12.status, 'Error');
		assert.match(String(results.credentialTestTls12.message), /protocol version|EPROTO/i);
		assert.deepEqual(attempts.credentialTest, { connections: 1, handshakes: 0 });
		assert.deepEqual(results.credentialTestTls13, {
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	test('no secret in any output, error, log line or request of the child run', () => {
		assert.deepEqual(results.leaks, []);
		assert.ok(results.scanned.outputs > 0, 'the check saw the outputs');
	});

	test('trigger: the webhook registration is refused on TLS 1.2 only, done on TLS 1.3', () => {
		assert.equal(results.triggerTls12.success, false);
		assert.equal(results.triggerTls12.message, refusal(tls12.trigger));
		assert.equal(results.triggerTls12.code, 'tls_version_unsupported');
		assert.deepEqual(attempts.trigger, { connections: 1, handshakes: 0 });
		assert.deepEqual(results.triggerTls13, { success: true });
	});
});
