/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP OAuth2 API credential as real n8n 2.41.1 serves and uses it (issue 15): the form holds no
 * raw expression, and a credential saved with Scopes left empty (as n8n's editor saves an untouched
 * multi-select) asks for the least-privilege default scopes in n8n's own authorization URL.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_OAUTH_CLIENT, startSandbox } from '../../sandbox';
import { ensureN8n, N8N_VERSION } from '../../scripts/n8n-env';
import {
	buildAndPack,
	freePort,
	installPackage,
	keepFilesOnFailure,
	N8nRest,
	n8nPaths,
	skipE2e,
	startN8n,
	type N8nConfig,
	type RunningN8n,
} from '../../scripts/n8n-instance';

const SKIP = skipE2e();
const log = (line: string) => process.stderr.write(`[e2e credential form] ${line}\n`);
const MINUTE = 60_000;

type Property = { name: string; type: string; default?: unknown; displayName: string };

(SKIP ? describe.skip : describe)(`the ERP OAuth2 credential in real n8n ${N8N_VERSION}`, () => {
	let userFolder: string;
	let config: N8nConfig;
	let sandbox: Awaited<ReturnType<typeof startSandbox>>;
	let n8n: RunningN8n | undefined;
	let rest: N8nRest;
	const { track, cleanUp } = keepFilesOnFailure(log);

	beforeAll(async () => {
		const env = await ensureN8n(log);
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-erp-e2e-form-'));
		const paths = n8nPaths(userFolder);
		const tarball = await buildAndPack(path.join(userFolder, 'pack'), paths.setupLog, log);
		await installPackage(paths, tarball, log);
		sandbox = await startSandbox({ port: 0 });
		config = { env, paths, port: await freePort(), brokerPort: await freePort() };
		n8n = await startN8n(config);
		rest = new N8nRest(n8n.url);
		await rest.signInAsOwner();
	}, 25 * MINUTE);

	afterAll(async () => {
		await n8n?.stop();
		await sandbox?.close();
		cleanUp(userFolder, config?.paths.n8nLog);
	}, 30 * MINUTE);

	it(
		'the form shows no raw expression; the fields a user fills come first among ours',
		track(async () => {
			const types = await rest.request<Array<{ name: string; properties: Property[] }>>(
				'GET',
				'/types/credentials.json',
			);
			const own = types.find((t) => t.name === 'erpOAuth2Api')?.properties ?? [];
			const visible = own.filter((p) => p.type !== 'hidden');
			const expressions = visible.filter(
				(p) => typeof p.default === 'string' && p.default.startsWith('='),
			);
			assert.deepEqual(expressions, [], 'a visible field opens on an expression');
			assert.deepEqual(
				visible.slice(0, 3).map((p) => p.name),
				['environment', 'baseUrl', 'scopes'],
			);
			// Control: the derived addresses are there, as hidden expressions.
			const hidden = own.filter((p) => p.type === 'hidden').map((p) => p.name);
			assert.ok(
				hidden.includes('authUrl') && hidden.includes('accessTokenUrl') && hidden.includes('scope'),
			);
		}),
		30 * MINUTE,
	);

	it(
		"a credential saved with empty Scopes asks for the default read scopes in n8n's authorization URL",
		track(async () => {
			const authorizeUrl = async (scopes: unknown) => {
				const credential = await rest.request<{ id: string }>('POST', '/rest/credentials', {
					name: `ERP OAuth2 ${JSON.stringify(scopes)}`,
					type: 'erpOAuth2Api',
					data: {
						environment: 'sandbox',
						baseUrl: sandbox.baseUrl,
						clientId: DEMO_OAUTH_CLIENT.clientId,
						clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
						scopes,
					},
				});
				return new URL(
					await rest.request<string>('GET', `/rest/oauth2-credential/auth?id=${credential.id}`),
				);
			};
			const url = await authorizeUrl([]);
			assert.equal(`${url.origin}${url.pathname}`, `${sandbox.url}/oauth/authorize`);
			assert.equal(url.searchParams.get('scope'), 'articles:read clients:read factures:read');
			assert.ok(!decodeURIComponent(url.href).includes('{{'), url.href);
			// Control: a chosen scope is what is asked.
			const chosen = await authorizeUrl(['articles:read', 'articles:write']);
			assert.equal(chosen.searchParams.get('scope'), 'articles:read articles:write');
		}),
		30 * MINUTE,
	);
});
