/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The ERP OAuth2 API credential as real n8n 2.41.1 serves and uses it (issue 15): the form holds no
 * raw expression, and a credential saved with Scopes left empty (as n8n's editor saves an untouched
 * multi-select) asks for the least-privilege default scopes in n8n's own authorization URL.
 * On the run's shared n8n (test/e2e/shared-n8n.ts).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_OAUTH_CLIENT } from '../../sandbox';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { e2eLog, MINUTE, startE2e, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e credential form');

type Property = { name: string; type: string; default?: unknown; displayName: string };

(SKIP ? describe.skip : describe)(`the ERP OAuth2 credential in real n8n ${N8N_VERSION}`, () => {
	let e2e: E2e;
	const files = keepFilesOnFailure(log);
	const track = files.track;

	beforeAll(async () => {
		e2e = await startE2e({ folderPrefix: 'n8n-nodes-erp-e2e-form-', log, files, shared: true });
	}, 25 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
	}, 30 * MINUTE);

	it(
		'the form shows no raw expression; the fields a user fills come first among ours',
		track(async () => {
			const types = await e2e.rest.request<Array<{ name: string; properties: Property[] }>>(
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
				const credential = await e2e.rest.request<{ id: string }>('POST', '/rest/credentials', {
					name: `ERP OAuth2 ${JSON.stringify(scopes)}`,
					type: 'erpOAuth2Api',
					data: {
						environment: 'sandbox',
						baseUrl: e2e.sandbox.baseUrl,
						clientId: DEMO_OAUTH_CLIENT.clientId,
						clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
						scopes,
					},
				});
				return new URL(
					await e2e.rest.request<string>('GET', `/rest/oauth2-credential/auth?id=${credential.id}`),
				);
			};
			const url = await authorizeUrl([]);
			assert.equal(`${url.origin}${url.pathname}`, `${e2e.sandbox.url}/oauth/authorize`);
			assert.equal(url.searchParams.get('scope'), 'articles:read clients:read factures:read');
			assert.ok(!decodeURIComponent(url.href).includes('{{'), url.href);
			// Control: a chosen scope is what is asked.
			const chosen = await authorizeUrl(['articles:read', 'articles:write']);
			assert.equal(chosen.searchParams.get('scope'), 'articles:read articles:write');
		}),
		30 * MINUTE,
	);
});
