/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests of the endpoints beyond the spec's table (docs/api-contract.md):
// GET /paie/bulletins, GET /audit/journal and DELETE /articles/:id.
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { z } from 'zod/v4';
import { control, errorCode } from '../../sandbox';
import { auditEntrySchema, bulletinSchema } from '../../sandbox/schemas';
import { useSandbox } from '../harness/sandbox';

const sandbox = useSandbox({ rateLimit: false, reset: 'beforeEach' });
const api = sandbox.api;

async function keyWith(...scopes: string[]): Promise<string> {
	const answer = await control(sandbox.url, 'keys', { scopes });
	assert.equal(answer.status, 201, answer.text);
	return answer.json.key as string;
}

describe('GET /paie/bulletins', () => {
	it('lists the 24 seeded slips in pages, in id order, each one consistent', async () => {
		const ids: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const answer = await api(
				'GET',
				`/paie/bulletins?limit=10${cursor ? `&cursor=${cursor}` : ''}`,
			);
			assert.equal(answer.status, 200, answer.text);
			assert.equal(answer.json.pagination.total, 24);
			for (const slip of answer.json.data) {
				const parsed = bulletinSchema.parse(slip);
				assert.equal(parsed.net_a_payer, parsed.salaire_brut - parsed.cotisations_salariales);
				ids.push(parsed.id);
			}
			cursor = answer.json.pagination.next_cursor;
			pages++;
		} while (cursor);
		assert.equal(pages, 3);
		assert.equal(ids.length, 24);
		assert.deepEqual(ids, [...ids].sort());
		assert.equal(new Set(ids).size, 24);
	});

	it('filters by periode and salarie_id, and refuses a bad periode', async () => {
		const december = await api('GET', '/paie/bulletins?periode=2025-12&limit=100');
		assert.equal(december.json.pagination.total, 8);
		assert.ok(december.json.data.every((b: { periode: string }) => b.periode === '2025-12'));
		const one = await api('GET', '/paie/bulletins?periode=2025-11&salarie_id=sal_00000003');
		assert.equal(one.json.data.length, 1);
		assert.equal(one.json.data[0].salarie_nom, 'Chloé Dubois');
		const bad = await api('GET', '/paie/bulletins?periode=2025-13');
		assert.equal(bad.status, 400);
		assert.equal(errorCode(bad), 'invalid_query');
	});

	it('needs paie:read: 403 insufficient_scope naming it', async () => {
		const answer = await api('GET', '/paie/bulletins', { key: await keyWith('articles:read') });
		assert.equal(answer.status, 403);
		assert.equal(errorCode(answer), 'insufficient_scope');
		assert.match(answer.json.error.message, /paie:read/);
		const allowed = await api('GET', '/paie/bulletins', { key: await keyWith('paie:read') });
		assert.equal(allowed.status, 200);
	});
});

describe('GET /audit/journal', () => {
	it('records every answered /v1 request with its actor (the key name, never its value)', async () => {
		const key = await keyWith('audit:read');
		await api('GET', '/articles?limit=1');
		await api('GET', '/paie/bulletins', { key }); // 403: recorded too
		const answer = await api('GET', '/audit/journal?limit=100', { key });
		assert.equal(answer.status, 200, answer.text);
		const entries = z.array(auditEntrySchema).parse(answer.json.data);
		assert.deepEqual(
			entries.map((e) => [e.methode, e.endpoint, e.statut_http, e.acteur_type]),
			[
				['GET', '/v1/articles', 200, 'api_key'],
				['GET', '/v1/paie/bulletins', 403, 'api_key'],
			],
		);
		assert.equal(entries[0].acteur, 'Demo (all scopes)');
		assert.ok(!answer.text.includes(key), 'the journal never shows a key');
		// The journal's own read is recorded after it answered.
		const again = await api('GET', '/audit/journal?limit=100', { key });
		assert.equal(again.json.data.length, 3);
		assert.equal(again.json.data[2].endpoint, '/v1/audit/journal');
	});

	it('needs audit:read', async () => {
		const answer = await api('GET', '/audit/journal', { key: await keyWith('paie:read') });
		assert.equal(answer.status, 403);
		assert.match(answer.json.error.message, /audit:read/);
	});
});

describe('DELETE /articles/:id', () => {
	it('deletes once (204), then answers 404; lists and cursors carry on without it', async () => {
		// Past the seeded invoices' articles (those are in use).
		const page = await api('GET', '/articles?limit=3&cursor=art_00000100');
		const [first, second, third] = page.json.data as Array<{ id: string; reference: string }>;
		const deleted = await api('DELETE', `/articles/${second.id}`);
		assert.equal(deleted.status, 204);
		assert.equal(deleted.text, '');
		assert.equal((await api('GET', `/articles/${second.id}`)).status, 404);
		const again = await api('DELETE', `/articles/${second.id}`);
		assert.equal(again.status, 404);
		assert.equal(errorCode(again), 'not_found');
		// A cursor naming the deleted article continues after it.
		const after = await api('GET', `/articles?limit=1&cursor=${second.id}`);
		assert.equal(after.status, 200, after.text);
		assert.equal(after.json.data[0].id, third.id);
		const list = await api('GET', '/articles?limit=2&cursor=art_00000100');
		assert.deepEqual(
			list.json.data.map((a: { id: string }) => a.id),
			[first.id, third.id],
		);
		assert.equal(list.json.pagination.total, 249);
		// Its reference is free again.
		const byRef = await api('GET', `/articles?reference=${second.reference}`);
		assert.equal(byRef.json.data.length, 0);
	});

	it('refuses an invoiced article (409 article_in_use) and needs articles:write', async () => {
		const invoice = (await api('GET', '/factures?limit=1')).json.data[0];
		const articleId = invoice.lignes[0].article_id;
		const refused = await api('DELETE', `/articles/${articleId}`);
		assert.equal(refused.status, 409);
		assert.equal(errorCode(refused), 'article_in_use');
		const other = (await api('GET', '/articles?limit=1&q=REF-000200')).json.data[0];
		const forbidden = await api('DELETE', `/articles/${other.id}`, {
			key: await keyWith('articles:read'),
		});
		assert.equal(forbidden.status, 403);
		assert.match(forbidden.json.error.message, /articles:write/);
		assert.equal((await api('GET', `/articles/${other.id}`)).status, 200);
	});
});
