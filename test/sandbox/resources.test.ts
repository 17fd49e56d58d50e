/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Contract tests: resource endpoints, pagination, filters, validation and business effects.
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import type { z } from 'zod/v4';
import { DEMO_KEYS } from '../../sandbox';
import {
	articleSchema,
	clientSchema,
	ecritureSchema,
	factureSchema,
	mouvementSchema,
} from '../../sandbox/schemas';
import { control, errorCode, type Answer } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';

const sandbox = useSandbox({ rateLimit: false, reset: 'beforeEach' });
const api = sandbox.api;

/** Follows next_cursor to the end; fails on a repeated cursor. */
async function readAll(
	path: string,
): Promise<{ items: Array<Record<string, unknown>>; totals: number[]; pages: number }> {
	const items: Array<Record<string, unknown>> = [];
	const totals: number[] = [];
	const seen = new Set<string>();
	let cursor: string | null = null;
	let pages = 0;
	do {
		const sep = path.includes('?') ? '&' : '?';
		const r: Answer = await api(
			'GET',
			`${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		);
		assert.equal(r.status, 200, r.text);
		items.push(...r.json.data);
		totals.push(r.json.pagination.total);
		cursor = r.json.pagination.next_cursor;
		assert.ok(!cursor || !seen.has(cursor), 'cursor repeated');
		if (cursor) seen.add(cursor);
		pages++;
	} while (cursor);
	return { items, totals, pages };
}

function ids(items: Array<Record<string, unknown>>): string[] {
	return items.map((i) => i.id as string);
}

describe('lists and pagination', () => {
	it('pages through every article with limit=100, reaching total with no duplicates, in id order', async () => {
		const first = await api('GET', '/articles');
		assert.equal(first.status, 200);
		assert.equal(first.json.data.length, 20, 'default limit is 20');
		assert.equal(first.json.pagination.total, 250);
		assert.match(first.json.pagination.next_cursor, /^art_/);
		const { items, totals, pages } = await readAll('/articles');
		assert.equal(pages, 3);
		assert.equal(items.length, 250);
		assert.equal(new Set(ids(items)).size, 250);
		assert.deepEqual(ids(items), [...ids(items)].sort());
		assert.ok(totals.every((t) => t === 250));
		for (const a of items.slice(0, 5)) {
			assert.match(a.id as string, /^art_/);
			assert.equal(typeof a.reference, 'string');
			assert.ok(
				Number.isInteger(a.prix_ht) && Number.isInteger(a.tva) && Number.isInteger(a.stock),
			);
			assert.match((a.categorie as { id: string }).id, /^cat_/);
		}
	});

	it('seeds deterministically, with several categories and low-stock articles', async () => {
		const a = (await api('GET', '/articles?limit=100')).json.data;
		await control(sandbox.url, 'reset', {});
		assert.deepEqual((await api('GET', '/articles?limit=100')).json.data, a);
		await control(sandbox.url, 'reset', { seed: 2 });
		assert.notDeepEqual((await api('GET', '/articles?limit=100')).json.data, a);
		await control(sandbox.url, 'reset', { articles: 1000 });
		const all = (await readAll('/articles')).items;
		assert.equal(all.length, 1000);
		const categories = new Set(all.map((x) => (x.categorie as { id: string }).id));
		assert.ok(categories.size >= 3);
		const low = all.filter(
			(x) =>
				(x.seuil_alerte as number) > 0 && (x.stock as number) - (x.seuil_alerte as number) <= 5,
		);
		assert.ok(low.length > 50, `only ${low.length} low-stock articles`);
		assert.equal((await api('GET', '/clients')).json.pagination.total, 30);
		assert.ok((await api('GET', '/factures')).json.pagination.total >= 3);
	});

	it('filters articles by categorie_id, reference and q, with total = filtered total', async () => {
		const all = (await readAll('/articles')).items;
		const mobilier = all.filter((a) => (a.categorie as { id: string }).id === 'cat_mobilier');
		const r = await readAll('/articles?categorie_id=cat_mobilier');
		assert.deepEqual(ids(r.items), ids(mobilier));
		assert.ok(r.totals.every((t) => t === mobilier.length));
		const one = await api('GET', `/articles?reference=${all[7].reference as string}`);
		assert.deepEqual(ids(one.json.data), [all[7].id]);
		const word = (all[3].designation as string).split(' ')[0].toLowerCase();
		const q = await readAll(`/articles?q=${encodeURIComponent(word.toUpperCase())}`);
		assert.deepEqual(
			ids(q.items),
			ids(all.filter((a) => (a.designation as string).toLowerCase().includes(word))),
		);
		assert.equal((await api('GET', '/articles?categorie_id=cat_none')).json.pagination.total, 0);
		assert.equal(
			(await api('GET', '/articles?categorie_id=cat_none')).json.pagination.next_cursor,
			null,
		);
	});

	it('answers 400 invalid_query for a bad limit, cursor or date', async () => {
		for (const qs of ['limit=0', 'limit=101', 'limit=abc', 'limit=2.5', 'cursor=art_nope']) {
			const r = await api('GET', `/articles?${qs}`);
			assert.equal(r.status, 400, qs);
			assert.equal(errorCode(r), 'invalid_query');
			assert.equal(r.json.error.details[0].field, qs.split('=')[0]);
		}
		for (const path of [
			'/stock/mouvements?date_debut=2026-13-40',
			'/comptabilite/grand-livre?date_fin=22/11/2026',
			'/factures?statut=inconnu',
		]) {
			const r = await api('GET', path);
			assert.equal(r.status, 400, path);
			assert.equal(errorCode(r), 'invalid_query');
		}
	});
	it('answers every list item in the shape its zod schema describes, with no extra field', async () => {
		await api('PATCH', '/articles/art_00000009', { body: { stock: 1 } });
		const lists: Array<[string, z.ZodType]> = [
			['/articles', articleSchema],
			['/clients', clientSchema],
			['/factures', factureSchema],
			['/stock/mouvements', mouvementSchema],
			['/comptabilite/grand-livre', ecritureSchema],
		];
		for (const [path, schema] of lists) {
			const { items } = await readAll(path);
			assert.ok(items.length > 0, path);
			for (const item of items) assert.deepEqual(schema.parse(item), item, path);
		}
	});
});

describe('articles and clients', () => {
	it('creates, reads and partly updates an article; duplicate reference is 409; bad input is 422; unknown id is 404', async () => {
		const created = await api('POST', '/articles', {
			body: {
				reference: 'NEW-1',
				designation: 'Nouvel article',
				prix_ht: 1250,
				tva: 2000,
				categorie_id: 'cat_outillage',
				seuil_alerte: 3,
			},
		});
		assert.equal(created.status, 201, created.text);
		assert.match(created.json.id, /^art_/);
		assert.equal(created.json.stock, 0);
		assert.deepEqual(created.json.categorie, { id: 'cat_outillage', nom: 'Outillage' });
		assert.deepEqual((await api('GET', `/articles/${created.json.id}`)).json, created.json);
		assert.equal((await api('GET', '/articles')).json.pagination.total, 251);

		const patched = await api('PATCH', `/articles/${created.json.id}`, {
			body: { designation: 'Renommé' },
		});
		assert.equal(patched.status, 200);
		assert.equal(patched.json.designation, 'Renommé');
		assert.equal(patched.json.prix_ht, 1250);

		const dup = await api('POST', '/articles', {
			body: { reference: 'NEW-1', designation: 'x', prix_ht: 1, tva: 0 },
		});
		assert.equal(dup.status, 409);
		assert.equal(errorCode(dup), 'duplicate_reference');
		const dupPatch = await api('PATCH', '/articles/art_00000001', { body: { reference: 'NEW-1' } });
		assert.equal(errorCode(dupPatch), 'duplicate_reference');

		const bad = await api('POST', '/articles', {
			body: { reference: 'X', prix_ht: 1.5, tva: 2000 },
		});
		assert.equal(bad.status, 422);
		assert.equal(errorCode(bad), 'validation_failed');
		assert.deepEqual(bad.json.error.details.map((d: { field: string }) => d.field).sort(), [
			'designation',
			'prix_ht',
		]);
		const badCat = await api('POST', '/articles', {
			body: { reference: 'Y', designation: 'y', prix_ht: 1, tva: 0, categorie_id: 'cat_nope' },
		});
		assert.equal(badCat.json.error.details[0].field, 'categorie_id');

		for (const [method, body] of [
			['GET', undefined],
			['PATCH', { designation: 'z' }],
		] as const) {
			const nf = await api(method, '/articles/art_99999999', { body });
			assert.equal(nf.status, 404);
			assert.equal(errorCode(nf), 'not_found');
			assert.match(nf.json.error.message, /Article art_99999999/);
		}
	});

	it('writes an ajustement movement when PATCH changes the stock', async () => {
		const before = (await api('GET', '/articles/art_00000020')).json;
		const r = await api('PATCH', '/articles/art_00000020', { body: { stock: before.stock + 7 } });
		assert.equal(r.json.stock, before.stock + 7);
		const mv = (await api('GET', '/stock/mouvements?article_id=art_00000020')).json;
		assert.equal(mv.pagination.total, 1);
		assert.deepEqual(
			{ ...mv.data[0], id: undefined, date: undefined },
			{
				id: undefined,
				date: undefined,
				article_id: 'art_00000020',
				type: 'ajustement',
				quantite: 7,
				stock_apres: before.stock + 7,
				origine: 'manuel',
				document_id: null,
			},
		);
		const negative = await api('PATCH', '/articles/art_00000020', { body: { stock: -1 } });
		assert.equal(negative.status, 422);
		assert.equal(negative.json.error.details[0].field, 'stock');
	});

	it('lists, searches, creates, reads and updates clients; a duplicate email is 409', async () => {
		const list = await api('GET', '/clients?limit=100');
		assert.equal(list.json.data.length, 30);
		const target = list.json.data[4];
		const q = await api('GET', `/clients?q=${encodeURIComponent(target.nom.toLowerCase())}`);
		assert.deepEqual(ids(q.json.data), [target.id]);
		assert.deepEqual(ids((await api('GET', `/clients?q=${target.email}`)).json.data), [target.id]);

		const created = await api('POST', '/clients', {
			body: { nom: 'Nouveau Client', email: 'new@client.example' },
		});
		assert.equal(created.status, 201);
		assert.match(created.json.id, /^cli_/);
		assert.equal(created.json.telephone, null);
		assert.deepEqual((await api('GET', `/clients/${created.json.id}`)).json, created.json);
		const dup = await api('POST', '/clients', {
			body: { nom: 'Autre', email: 'NEW@client.example' },
		});
		assert.equal(dup.status, 409);
		assert.equal(errorCode(dup), 'duplicate_email');
		const patched = await api('PATCH', `/clients/${created.json.id}`, {
			body: { telephone: '+33 6 00 00 00 00' },
		});
		assert.equal(patched.json.telephone, '+33 6 00 00 00 00');
		assert.equal(patched.json.nom, 'Nouveau Client');
		assert.equal(
			errorCode(
				await api('PATCH', `/clients/${created.json.id}`, { body: { email: target.email } }),
			),
			'duplicate_email',
		);
		assert.equal(
			(await api('POST', '/clients', { body: { nom: 'x', email: 'not-an-email' } })).json.error
				.details[0].field,
			'email',
		);
		assert.equal((await api('GET', '/clients/cli_99999999')).status, 404);
	});

	it('answers 400 invalid_json for a body that is not JSON', async () => {
		const r = await api('POST', '/clients', {
			raw: '{"nom": ',
			headers: { 'content-type': 'application/json' },
		});
		assert.equal(r.status, 400);
		assert.equal(errorCode(r), 'invalid_json');
	});
});

describe('invoices and settlements', () => {
	async function newArticle(fields: Record<string, unknown>) {
		const r = await api('POST', '/articles', {
			body: { reference: `T-${Math.random()}`, designation: 'Test', ...fields },
		});
		assert.equal(r.status, 201, r.text);
		return r.json;
	}

	/** POST /factures for client cli_00000001 with these [article id, quantity] lines. */
	const postInvoice = (lines: Array<[string, number]>) =>
		api('POST', '/factures', {
			body: {
				client_id: 'cli_00000001',
				lignes: lines.map(([article_id, quantite]) => ({ article_id, quantite })),
			},
		});

	it('issues an invoice: totals (half up), stock out, movements, ledger entries', async () => {
		const a = await newArticle({ prix_ht: 3, tva: 5000, stock: 10 }); // 3 * 50 % = 1.5 -> 2 per unit line of 1
		const b = await newArticle({ prix_ht: 1999, tva: 550, stock: 5 });
		const r = await api('POST', '/factures', {
			body: {
				client_id: 'cli_00000002',
				lignes: [
					{ article_id: a.id, quantite: 1 },
					{ article_id: b.id, quantite: 3, prix_ht: 1500 },
				],
				reference_externe: 'WEB-42',
				date: '2026-03-15',
			},
		});
		assert.equal(r.status, 201, r.text);
		const f = r.json;
		assert.match(f.id, /^fac_/);
		assert.equal(f.statut, 'emise');
		assert.deepEqual(
			f.lignes.map((l: Record<string, number>) => [
				l.quantite,
				l.prix_ht,
				l.tva,
				l.total_ht,
				l.total_tva,
				l.total_ttc,
			]),
			[
				[1, 3, 5000, 3, 2, 5],
				[3, 1500, 550, 4500, 248, 4748], // 4500 * 5.5 % = 247.5 -> 248
			],
		);
		assert.deepEqual(
			[f.total_ht, f.total_tva, f.total_ttc, f.montant_regle, f.reste_a_payer],
			[4503, 250, 4753, 0, 4753],
		);
		assert.equal(f.reference_externe, 'WEB-42');
		assert.deepEqual((await api('GET', `/factures/${f.id}`)).json, f);

		assert.equal((await api('GET', `/articles/${a.id}`)).json.stock, 9);
		assert.equal((await api('GET', `/articles/${b.id}`)).json.stock, 2);
		const mv = (await api('GET', `/stock/mouvements?article_id=${b.id}`)).json.data;
		assert.deepEqual(
			mv.map((m: Record<string, unknown>) => [
				m.type,
				m.quantite,
				m.stock_apres,
				m.origine,
				m.document_id,
			]),
			[['sortie', 3, 2, 'facture', f.id]],
		);
		const ledger = (
			await api('GET', '/comptabilite/grand-livre?date_debut=2026-03-15&date_fin=2026-03-15')
		).json.data;
		assert.deepEqual(
			ledger.map((e: Record<string, unknown>) => [e.journal, e.piece, e.compte, e.debit, e.credit]),
			[
				['VT', f.numero, '411', 4753, 0],
				['VT', f.numero, '706', 0, 4503],
				['VT', f.numero, '44571', 0, 250],
			],
		);
		const byCompte = (await api('GET', '/comptabilite/grand-livre?compte=44571&limit=100')).json;
		assert.ok(byCompte.data.every((e: { compte: string }) => e.compte === '44571'));
		assert.ok(byCompte.data.some((e: { piece: string }) => e.piece === f.numero));

		const filtered = await api('GET', `/factures?reference_externe=WEB-42`);
		assert.deepEqual(ids(filtered.json.data), [f.id]);
		assert.ok(
			ids((await api('GET', '/factures?client_id=cli_00000002&statut=emise')).json.data).includes(
				f.id,
			),
		);
		assert.ok(!ids((await api('GET', '/factures?statut=payee')).json.data).includes(f.id));
	});

	it('refuses an invoice that would take stock below zero (409 insufficient_stock), all or nothing', async () => {
		const a = await newArticle({ prix_ht: 100, tva: 2000, stock: 10 });
		const b = await newArticle({ prix_ht: 100, tva: 2000, stock: 2 });
		const invoicesBefore = (await control(sandbox.url, 'stats')).json.invoices;
		const r = await postInvoice([
			[a.id, 5],
			[b.id, 3],
		]);
		assert.equal(r.status, 409);
		assert.equal(errorCode(r), 'insufficient_stock');
		assert.equal(r.json.error.details[0].field, 'lignes[1].quantite');
		assert.equal((await api('GET', `/articles/${a.id}`)).json.stock, 10);
		assert.equal(
			(await api('GET', `/stock/mouvements?article_id=${a.id}`)).json.pagination.total,
			0,
		);
		assert.equal((await control(sandbox.url, 'stats')).json.invoices, invoicesBefore);
		// The same article twice counts both lines.
		const twice = await postInvoice([
			[b.id, 2],
			[b.id, 1],
		]);
		assert.equal(errorCode(twice), 'insufficient_stock');
	});

	it('answers 422 with the field for a bad line, an unknown article or client', async () => {
		const cases: Array<[unknown, string]> = [
			[
				{ client_id: 'cli_00000001', lignes: [{ article_id: 'art_00000001', quantite: 1.5 }] },
				'lignes[0].quantite',
			],
			[
				{
					client_id: 'cli_00000001',
					lignes: [
						{ article_id: 'art_00000001', quantite: 1 },
						{ article_id: 'art_x', quantite: 1 },
					],
				},
				'lignes[1].article_id',
			],
			[
				{ client_id: 'cli_00000001', lignes: [{ article_id: 'art_nope', quantite: 1 }] },
				'lignes[0].article_id',
			],
			[
				{ client_id: 'cli_nope', lignes: [{ article_id: 'art_00000001', quantite: 1 }] },
				'client_id',
			],
			[{ client_id: 'cli_00000001', lignes: [] }, 'lignes'],
		];
		for (const [body, field] of cases) {
			const r = await api('POST', '/factures', { body });
			assert.equal(r.status, 422, field);
			assert.equal(errorCode(r), 'validation_failed');
			assert.ok(
				r.json.error.details.some((d: { field: string }) => d.field === field),
				`${field}: ${r.text}`,
			);
		}
	});

	it('records settlements: partial then full payment, 409 insufficient_balance, ledger 512/411', async () => {
		const a = await newArticle({ prix_ht: 1000, tva: 2000, stock: 5 });
		const f = (
			await api('POST', '/factures', {
				body: { client_id: 'cli_00000003', lignes: [{ article_id: a.id, quantite: 1 }] },
			})
		).json;
		assert.equal(f.total_ttc, 1200);
		const r1 = await api('POST', '/reglements', {
			body: {
				facture_id: f.id,
				montant: 500,
				mode: 'virement',
				date: '2026-04-01',
				reference: 'VIR-1',
			},
		});
		assert.equal(r1.status, 201, r1.text);
		assert.match(r1.json.id, /^reg_/);
		let now = (await api('GET', `/factures/${f.id}`)).json;
		assert.deepEqual(
			[now.statut, now.montant_regle, now.reste_a_payer],
			['partiellement_payee', 500, 700],
		);

		const over = await api('POST', '/reglements', {
			body: { facture_id: f.id, montant: 701, mode: 'carte' },
		});
		assert.equal(over.status, 409);
		assert.equal(errorCode(over), 'insufficient_balance');
		const r2 = await api('POST', '/reglements', {
			body: { facture_id: f.id, montant: 700, mode: 'carte', date: '2026-04-01' },
		});
		assert.equal(r2.status, 201);
		now = (await api('GET', `/factures/${f.id}`)).json;
		assert.deepEqual([now.statut, now.montant_regle, now.reste_a_payer], ['payee', 1200, 0]);
		assert.equal(
			errorCode(
				await api('POST', '/reglements', {
					body: { facture_id: f.id, montant: 1, mode: 'especes' },
				}),
			),
			'insufficient_balance',
		);

		const ledger = (
			await api('GET', '/comptabilite/grand-livre?date_debut=2026-04-01&date_fin=2026-04-01')
		).json.data;
		assert.deepEqual(
			ledger.map((e: Record<string, unknown>) => [e.journal, e.compte, e.debit, e.credit]),
			[
				['BQ', '512', 500, 0],
				['BQ', '411', 0, 500],
				['BQ', '512', 700, 0],
				['BQ', '411', 0, 700],
			],
		);
		const bad = await api('POST', '/reglements', {
			body: { facture_id: 'fac_nope', montant: 1, mode: 'bitcoin' },
		});
		assert.equal(bad.status, 422);
		assert.deepEqual(
			bad.json.error.details.map((d: { field: string }) => d.field),
			['mode'],
		);
		assert.equal(
			(
				await api('POST', '/reglements', {
					body: { facture_id: 'fac_nope', montant: 1, mode: 'cheque' },
				})
			).json.error.details[0].field,
			'facture_id',
		);
		assert.equal((await api('GET', '/factures/fac_99999999')).status, 404);
	});

	it('keeps invoice and settlement counts in stats, with ids normalised in byPath', async () => {
		await api('GET', '/articles/art_00000001');
		await api('GET', '/articles/art_00000002');
		await api('GET', '/articles/art_nope');
		await control(sandbox.url, 'stats');
		const stats = (await control(sandbox.url, 'stats')).json;
		assert.equal(stats.requests, 3);
		assert.deepEqual(stats.byPath, { 'GET /v1/articles/:id': 3 });
		assert.deepEqual(stats.byStatus, { '200': 2, '404': 1 });
		assert.equal(stats.invoices, 5);
		assert.equal(stats.settlements, 2);
	});
});

describe('unknown endpoints', () => {
	it('answers 404 and 405 in the error shape', async () => {
		assert.equal(errorCode(await api('GET', '/nothing')), 'not_found');
		const r = await api('DELETE', '/articles');
		assert.equal(r.status, 405);
		assert.equal(errorCode(r), 'method_not_allowed');
		assert.equal((await api('GET', '/articles', { key: DEMO_KEYS.readonly })).status, 200);
	});
});
