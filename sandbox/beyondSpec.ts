// Endpoints beyond the spec's table ("further endpoints may exist"), for the node's API Request
// operation. Each is an assumption, listed in docs/api-contract.md:
// - GET /paie/bulletins: payroll slips (scope paie:read), a list envelope, filters periode, salarie_id;
// - GET /audit/journal: the audit journal of section 5.5 (scope audit:read), a list envelope;
// - DELETE /articles/:id: deletes an article (scope articles:write), 204. Not idempotent in its
//   answer: a second DELETE of the same article answers 404; an invoiced article is 409.
import type { Ctx } from './context';
import { ApiError, json, notFound, type Reply, type Router } from './http';
import type { AuditEntry, Bulletin } from './schemas';
import { invalidQuery, listQuery, type Store } from './store';

/** The audit journal keeps this many entries; beyond, the oldest are forgotten (by thousands). */
export const AUDIT_JOURNAL_MAX = 10_000;

const opt = (qs: URLSearchParams, name: string) => {
	const v = qs.get(name);
	return v === null || v === '' ? undefined : v;
};

export function deleteArticle(store: Store, id: string): Reply {
	const article = store.articles.get(id);
	if (!article) throw notFound('Article', id);
	const invoiced = store.factures.all().find((f) => f.lignes.some((l) => l.article_id === id));
	if (invoiced) {
		throw new ApiError(
			409,
			'article_in_use',
			`Article ${id} appears on invoice ${invoiced.numero} and cannot be deleted`,
		);
	}
	store.articles.remove(id);
	store.articleRefs.delete(article.reference);
	return { status: 204 };
}

/** Adds one entry to the audit journal (every /v1 request that got an answer). */
export function recordAudit(store: Store, entry: Omit<AuditEntry, 'id'>): void {
	store.audit.add({ id: store.audit.nextId(), ...entry });
	if (store.audit.size > AUDIT_JOURNAL_MAX) store.audit.dropOldest(1000);
}

export function beyondSpecRoutes(router: Router<Ctx>): void {
	router
		.add('GET', '/v1/paie/bulletins', (ctx) => {
			ctx.requireScope('paie:read');
			const periode = opt(ctx.qs, 'periode');
			if (periode !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(periode)) {
				throw invalidQuery('periode', 'Expected a month YYYY-MM');
			}
			const salarie = opt(ctx.qs, 'salarie_id');
			const active = [periode && `p=${periode}`, salarie && `s=${salarie}`].filter(Boolean);
			const filter = active.length
				? (b: Bulletin) =>
						(!periode || b.periode === periode) && (!salarie || b.salarie_id === salarie)
				: undefined;
			return json(200, ctx.store.bulletins.page(listQuery(ctx.qs), filter, active.join('&')));
		})
		.add('GET', '/v1/audit/journal', (ctx) => {
			ctx.requireScope('audit:read');
			return json(200, ctx.store.audit.page(listQuery(ctx.qs)));
		})
		.add('DELETE', '/v1/articles/:id', (ctx, p) => {
			ctx.requireScope('articles:write');
			return deleteArticle(ctx.store, p.id);
		});
}
