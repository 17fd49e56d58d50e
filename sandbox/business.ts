// Business rules and the /v1 resource endpoints (articles, clients, factures, reglements, stock, ledger).
import type { Ctx } from './context';
import { ApiError, json, notFound, Router, validateBody } from './http';
import {
	articleCreateSchema,
	articleUpdateSchema,
	clientCreateSchema,
	clientUpdateSchema,
	dateQuerySchema,
	factureCreateSchema,
	FACTURE_STATUTS,
	reglementCreateSchema,
	type Article,
	type Ecriture,
	type EventType,
	type Facture,
	type Reglement,
} from './schemas';
import { invalidQuery, listQuery, SEED_EPOCH, type Store } from './store';

export type Emit = (type: EventType, data: Record<string, unknown>) => void;

const today = (now: Date) => now.toISOString().slice(0, 10);

/** The record with this id, or the 404 that names the resource. */
function found<T>(records: { get(id: string): T | undefined }, resource: string, id: string): T {
	const record = records.get(id);
	if (!record) throw notFound(resource, id);
	return record;
}

/** round(amount * rate / 10000), half up, in integer arithmetic (amounts are >= 0). */
export function taxOf(amountHt: number, rateBp: number): number {
	return Math.floor((amountHt * rateBp + 5000) / 10000);
}

/** The data of `stock.bas`: the article, and the movement that crossed the threshold (its identity). */
export function stockBasData(a: Article, mouvementId: string) {
	return {
		article_id: a.id,
		mouvement_id: mouvementId,
		reference: a.reference,
		designation: a.designation,
		stock: a.stock,
		seuil_alerte: a.seuil_alerte,
	};
}

/** Sets an article's stock; true when it crosses from above seuil_alerte to at or below it (`stock.bas`). */
function setStock(store: Store, article: Article, stock: number, now: Date): boolean {
	const before = article.stock;
	article.stock = stock;
	article.updated_at = now.toISOString();
	store.articles.touched();
	return before > article.seuil_alerte && stock <= article.seuil_alerte;
}

function categorieOf(store: Store, id: string | undefined) {
	const categorie = store.categories.get(id ?? 'cat_divers');
	if (!categorie) {
		throw new ApiError(422, 'validation_failed', 'The request body failed validation', [
			{ field: 'categorie_id', message: `Unknown category ${id}` },
		]);
	}
	return categorie;
}

function duplicateReference(reference: string): ApiError {
	return new ApiError(
		409,
		'duplicate_reference',
		`An article with reference ${reference} already exists`,
		[{ field: 'reference', message: 'Already used by another article' }],
	);
}

export function createArticle(store: Store, body: unknown, now: Date): Article {
	const input = validateBody(articleCreateSchema, body);
	const categorie = categorieOf(store, input.categorie_id);
	if (store.articleRefs.has(input.reference)) throw duplicateReference(input.reference);
	const at = now.toISOString();
	const article = store.articles.add({
		id: store.articles.nextId(),
		reference: input.reference,
		designation: input.designation,
		prix_ht: input.prix_ht,
		tva: input.tva,
		stock: input.stock,
		seuil_alerte: input.seuil_alerte,
		categorie,
		created_at: at,
		updated_at: at,
	});
	store.articleRefs.set(article.reference, article.id);
	return article;
}

export function updateArticle(
	store: Store,
	emit: Emit,
	id: string,
	body: unknown,
	now: Date,
): Article {
	const article = found(store.articles, 'Article', id);
	const input = validateBody(articleUpdateSchema, body);
	const categorie =
		input.categorie_id === undefined ? article.categorie : categorieOf(store, input.categorie_id);
	if (input.reference !== undefined && input.reference !== article.reference) {
		if (store.articleRefs.has(input.reference)) throw duplicateReference(input.reference);
		store.articleRefs.delete(article.reference);
		store.articleRefs.set(input.reference, article.id);
		article.reference = input.reference;
	}
	if (input.designation !== undefined) article.designation = input.designation;
	if (input.prix_ht !== undefined) article.prix_ht = input.prix_ht;
	if (input.tva !== undefined) article.tva = input.tva;
	if (input.seuil_alerte !== undefined) article.seuil_alerte = input.seuil_alerte;
	article.categorie = categorie;
	article.updated_at = now.toISOString();
	store.articles.touched();
	if (input.stock !== undefined && input.stock !== article.stock) {
		const delta = input.stock - article.stock;
		const mouvement = store.mouvements.add({
			id: store.mouvements.nextId(),
			article_id: article.id,
			type: 'ajustement',
			quantite: delta,
			stock_apres: input.stock,
			origine: 'manuel',
			document_id: null,
			date: now.toISOString(),
		});
		if (setStock(store, article, input.stock, now)) {
			emit('stock.bas', stockBasData(article, mouvement.id));
		}
	}
	return article;
}

function unknownRef(field: string, what: string, id: string): ApiError {
	return new ApiError(422, 'validation_failed', 'The request body failed validation', [
		{ field, message: `Unknown ${what} ${id}` },
	]);
}

function post(store: Store, e: Omit<Ecriture, 'id'>): void {
	store.ecritures.add({ id: store.ecritures.nextId(), ...e });
}

/** Issues an invoice: all-or-nothing stock check, movements, ledger entries, events. */
export function createFacture(store: Store, emit: Emit, body: unknown, now: Date): Facture {
	const input = validateBody(factureCreateSchema, body);
	const client = store.clients.get(input.client_id);
	if (!client) throw unknownRef('client_id', 'client', input.client_id);
	const articles = input.lignes.map((l, i) => {
		const a = store.articles.get(l.article_id);
		if (!a) throw unknownRef(`lignes[${i}].article_id`, 'article', l.article_id);
		return a;
	});
	// All-or-nothing: sum the quantities per article before touching anything.
	const wanted = new Map<string, number>();
	input.lignes.forEach((l) =>
		wanted.set(l.article_id, (wanted.get(l.article_id) ?? 0) + l.quantite),
	);
	const short = input.lignes
		.map((l, i) => ({ l, i, a: articles[i] }))
		.filter(({ l, a }) => (wanted.get(l.article_id) ?? 0) > a.stock);
	if (short.length) {
		throw new ApiError(
			409,
			'insufficient_stock',
			`Insufficient stock for ${short.map(({ a }) => a.reference).join(', ')}`,
			short.map(({ i, a }) => ({
				field: `lignes[${i}].quantite`,
				message: `Article ${a.id} has ${a.stock} in stock, ${wanted.get(a.id)} requested`,
			})),
		);
	}
	const lignes = input.lignes.map((l, i) => {
		const a = articles[i];
		const prix = l.prix_ht ?? a.prix_ht;
		const total_ht = prix * l.quantite;
		const total_tva = taxOf(total_ht, a.tva);
		return {
			article_id: a.id,
			reference: a.reference,
			designation: a.designation,
			quantite: l.quantite,
			prix_ht: prix,
			tva: a.tva,
			total_ht,
			total_tva,
			total_ttc: total_ht + total_tva,
		};
	});
	const total_ht = lignes.reduce((s, l) => s + l.total_ht, 0);
	const total_tva = lignes.reduce((s, l) => s + l.total_tva, 0);
	const date = input.date ?? today(now);
	store.factureNumero += 1;
	const facture = store.factures.add({
		id: store.factures.nextId(),
		numero: `F${date.slice(0, 4)}-${String(store.factureNumero).padStart(6, '0')}`,
		client_id: client.id,
		statut: 'emise',
		date,
		lignes,
		total_ht,
		total_tva,
		total_ttc: total_ht + total_tva,
		montant_regle: 0,
		reste_a_payer: total_ht + total_tva,
		reference_externe: input.reference_externe ?? null,
		created_at: now.toISOString(),
	});
	// The movement that crossed each article's threshold (at most one: stock only goes down here).
	const low = new Map<Article, string>();
	input.lignes.forEach((l, i) => {
		const a = articles[i];
		const after = a.stock - l.quantite;
		const mouvement = store.mouvements.add({
			id: store.mouvements.nextId(),
			article_id: a.id,
			type: 'sortie',
			quantite: l.quantite,
			stock_apres: after,
			origine: 'facture',
			document_id: facture.id,
			date: now.toISOString(),
		});
		if (setStock(store, a, after, now)) low.set(a, mouvement.id);
	});
	const libelle = `Facture ${facture.numero} ${client.nom}`;
	const base = { date, journal: 'VT' as const, piece: facture.numero, libelle };
	post(store, { ...base, compte: '411', debit: facture.total_ttc, credit: 0 });
	post(store, { ...base, compte: '706', debit: 0, credit: total_ht });
	if (total_tva > 0) post(store, { ...base, compte: '44571', debit: 0, credit: total_tva });
	emit('vente.creee', { ...facture });
	for (const [a, mouvementId] of low) emit('stock.bas', stockBasData(a, mouvementId));
	return facture;
}

export function createReglement(store: Store, emit: Emit, body: unknown, now: Date): Reglement {
	const input = validateBody(reglementCreateSchema, body);
	const facture = store.factures.get(input.facture_id);
	if (!facture) throw unknownRef('facture_id', 'invoice', input.facture_id);
	if (input.montant > facture.reste_a_payer) {
		throw new ApiError(
			409,
			'insufficient_balance',
			`The amount ${input.montant} is more than the ${facture.reste_a_payer} left to pay on invoice ${facture.numero}`,
			[{ field: 'montant', message: `At most ${facture.reste_a_payer}` }],
		);
	}
	const date = input.date ?? today(now);
	const reglement = store.reglements.add({
		id: store.reglements.nextId(),
		facture_id: facture.id,
		montant: input.montant,
		mode: input.mode,
		date,
		reference: input.reference ?? null,
		created_at: now.toISOString(),
	});
	facture.montant_regle += input.montant;
	facture.reste_a_payer -= input.montant;
	facture.statut = facture.reste_a_payer === 0 ? 'payee' : 'partiellement_payee';
	store.factures.touched();
	const base = {
		date,
		journal: 'BQ' as const,
		piece: reglement.id,
		libelle: `Règlement ${facture.numero}`,
	};
	post(store, { ...base, compte: '512', debit: input.montant, credit: 0 });
	post(store, { ...base, compte: '411', debit: 0, credit: input.montant });
	if (facture.reste_a_payer === 0) emit('facture.payee', { ...facture });
	return reglement;
}

export function createClient(store: Store, body: unknown, now: Date) {
	const input = validateBody(clientCreateSchema, body);
	const email = input.email.toLowerCase();
	if (store.clientEmails.has(email)) throw duplicateEmail(input.email);
	const client = store.clients.add({
		id: store.clients.nextId(),
		nom: input.nom,
		email: input.email,
		telephone: input.telephone ?? null,
		adresse: input.adresse ?? null,
		created_at: now.toISOString(),
	});
	store.clientEmails.set(email, client.id);
	return client;
}

function duplicateEmail(email: string): ApiError {
	return new ApiError(409, 'duplicate_email', `A client with email ${email} already exists`, [
		{ field: 'email', message: 'Already used by another client' },
	]);
}

/** A few invoices and settlements through the real rules, with a fixed clock (no events). */
export function seedInvoices(store: Store): void {
	const quiet: Emit = () => undefined;
	const articles = store.articles.all().filter((a) => a.stock >= 10);
	const clients = store.clients.all();
	if (articles.length < 6 || clients.length < 5) return;
	for (let i = 0; i < 5; i++) {
		const now = new Date(SEED_EPOCH + 86400000 * (i + 1));
		const f = createFacture(
			store,
			quiet,
			{
				client_id: clients[i].id,
				lignes: [
					{ article_id: articles[i].id, quantite: 1 + i },
					{ article_id: articles[i + 1].id, quantite: 2 },
				],
				reference_externe: `CMD-${1000 + i}`,
			},
			now,
		);
		if (i === 1)
			createReglement(
				store,
				quiet,
				{ facture_id: f.id, montant: Math.floor(f.total_ttc / 2), mode: 'virement' },
				now,
			);
		if (i === 2)
			createReglement(store, quiet, { facture_id: f.id, montant: f.total_ttc, mode: 'carte' }, now);
	}
}

// ---------- query filters ----------
function dateFilter(qs: URLSearchParams, name: string): string | undefined {
	const v = qs.get(name);
	if (v === null || v === '') return undefined;
	if (!dateQuerySchema.safeParse(v).success) throw invalidQuery(name, 'Expected a date YYYY-MM-DD');
	return v;
}

function dateRange(qs: URLSearchParams) {
	const from = dateFilter(qs, 'date_debut');
	const to = dateFilter(qs, 'date_fin');
	return {
		from,
		to,
		test: (date: string) =>
			(!from || date.slice(0, 10) >= from) && (!to || date.slice(0, 10) <= to),
	};
}

const opt = (qs: URLSearchParams, name: string) => {
	const v = qs.get(name);
	return v === null || v === '' ? undefined : v;
};

type Filter<T> = { fn?: (t: T) => boolean; key: string };
function filterOf<T>(
	parts: Array<[string, string | undefined, (t: T, v: string) => boolean]>,
): Filter<T> {
	const active = parts.filter(([, v]) => v !== undefined) as Array<
		[string, string, (t: T, v: string) => boolean]
	>;
	if (!active.length) return { key: '' };
	return {
		key: JSON.stringify(active.map(([k, v]) => [k, v])),
		fn: (t) => active.every(([, v, test]) => test(t, v)),
	};
}

// ---------- routes ----------
export function businessRoutes(router: Router<Ctx>): void {
	router
		.add('GET', '/v1/articles', (ctx) => {
			ctx.requireScope('articles:read');
			const q = opt(ctx.qs, 'q')?.toLowerCase();
			const f = filterOf<Article>([
				['reference', opt(ctx.qs, 'reference'), (a, v) => a.reference === v],
				['categorie_id', opt(ctx.qs, 'categorie_id'), (a, v) => a.categorie.id === v],
				[
					'q',
					q,
					(a, v) =>
						a.designation.toLowerCase().includes(v) || a.reference.toLowerCase().includes(v),
				],
			]);
			return json(200, ctx.store.articles.page(listQuery(ctx.qs), f.fn, f.key));
		})
		.add('POST', '/v1/articles', (ctx) => {
			ctx.requireScope('articles:write');
			return json(201, createArticle(ctx.store, ctx.body(), ctx.now()));
		})
		.add('GET', '/v1/articles/:id', (ctx, p) => {
			ctx.requireScope('articles:read');
			return json(200, found(ctx.store.articles, 'Article', p.id));
		})
		.add('PATCH', '/v1/articles/:id', (ctx, p) => {
			ctx.requireScope('articles:write');
			return json(200, updateArticle(ctx.store, ctx.emit, p.id, ctx.body(), ctx.now()));
		})
		.add('GET', '/v1/clients', (ctx) => {
			ctx.requireScope('clients:read');
			const f = filterOf<{ nom: string; email: string }>([
				[
					'q',
					opt(ctx.qs, 'q')?.toLowerCase(),
					(c, v) => c.nom.toLowerCase().includes(v) || c.email.toLowerCase().includes(v),
				],
			]);
			return json(200, ctx.store.clients.page(listQuery(ctx.qs), f.fn, f.key));
		})
		.add('POST', '/v1/clients', (ctx) => {
			ctx.requireScope('clients:write');
			return json(201, createClient(ctx.store, ctx.body(), ctx.now()));
		})
		.add('GET', '/v1/clients/:id', (ctx, p) => {
			ctx.requireScope('clients:read');
			return json(200, found(ctx.store.clients, 'Client', p.id));
		})
		.add('PATCH', '/v1/clients/:id', (ctx, p) => {
			ctx.requireScope('clients:write');
			const c = found(ctx.store.clients, 'Client', p.id);
			const input = validateBody(clientUpdateSchema, ctx.body());
			if (input.email !== undefined && input.email.toLowerCase() !== c.email.toLowerCase()) {
				if (ctx.store.clientEmails.has(input.email.toLowerCase()))
					throw duplicateEmail(input.email);
				ctx.store.clientEmails.delete(c.email.toLowerCase());
				ctx.store.clientEmails.set(input.email.toLowerCase(), c.id);
			}
			if (input.email !== undefined) c.email = input.email;
			if (input.nom !== undefined) c.nom = input.nom;
			if (input.telephone !== undefined) c.telephone = input.telephone;
			if (input.adresse !== undefined) c.adresse = input.adresse;
			ctx.store.clients.touched();
			return json(200, c);
		})
		.add('GET', '/v1/factures', (ctx) => {
			ctx.requireScope('factures:read');
			const statut = opt(ctx.qs, 'statut');
			if (statut !== undefined && !(FACTURE_STATUTS as readonly string[]).includes(statut)) {
				throw invalidQuery('statut', `Expected one of ${FACTURE_STATUTS.join(', ')}`);
			}
			const f = filterOf<Facture>([
				['client_id', opt(ctx.qs, 'client_id'), (x, v) => x.client_id === v],
				['statut', statut, (x, v) => x.statut === v],
				[
					'reference_externe',
					opt(ctx.qs, 'reference_externe'),
					(x, v) => x.reference_externe === v,
				],
			]);
			return json(200, ctx.store.factures.page(listQuery(ctx.qs), f.fn, f.key));
		})
		.add('POST', '/v1/factures', (ctx) => {
			ctx.requireScope('factures:write');
			return json(201, createFacture(ctx.store, ctx.emit, ctx.body(), ctx.now()));
		})
		.add('GET', '/v1/factures/:id', (ctx, p) => {
			ctx.requireScope('factures:read');
			return json(200, found(ctx.store.factures, 'Invoice', p.id));
		})
		.add('POST', '/v1/reglements', (ctx) => {
			ctx.requireScope('factures:write');
			return json(201, createReglement(ctx.store, ctx.emit, ctx.body(), ctx.now()));
		})
		.add('GET', '/v1/reglements', (ctx) => {
			ctx.requireScope('factures:read');
			const f = filterOf<Reglement>([
				['facture_id', opt(ctx.qs, 'facture_id'), (x, v) => x.facture_id === v],
				['reference', opt(ctx.qs, 'reference'), (x, v) => x.reference === v],
			]);
			return json(200, ctx.store.reglements.page(listQuery(ctx.qs), f.fn, f.key));
		})
		.add('GET', '/v1/stock/mouvements', (ctx) => {
			ctx.requireScope('articles:read');
			const range = dateRange(ctx.qs);
			const f = filterOf<{ article_id: string; date: string }>([
				['article_id', opt(ctx.qs, 'article_id'), (m, v) => m.article_id === v],
				['date_debut', range.from, (m) => range.test(m.date)],
				['date_fin', range.to, (m) => range.test(m.date)],
			]);
			return json(200, ctx.store.mouvements.page(listQuery(ctx.qs), f.fn, f.key));
		})
		.add('GET', '/v1/comptabilite/grand-livre', (ctx) => {
			ctx.requireScope('compta:read');
			const range = dateRange(ctx.qs);
			const f = filterOf<Ecriture>([
				['compte', opt(ctx.qs, 'compte'), (e, v) => e.compte === v],
				['date_debut', range.from, (e) => range.test(e.date)],
				['date_fin', range.to, (e) => range.test(e.date)],
			]);
			return json(200, ctx.store.ecritures.page(listQuery(ctx.qs), f.fn, f.key));
		});
}
