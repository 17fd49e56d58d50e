// What the editor loads from the API: the articles' categories, and the locators' searchable lists,
// a page per call through the transport's list reader (a server refusing the page size gets a
// smaller one), next_cursor being the pagination token, so more pages load as the user scrolls.
import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';

import { erpListPage, erpPaginate } from '../../shared/transport';

const PAGE_SIZE = 50;

function money(cents: unknown): string {
	return typeof cents === 'number' ? (cents / 100).toFixed(2) : '?';
}

/** The list search of a list the API searches by text (`q`), each record shown as `name` gives it. */
function searchByText(path: string, name: (record: IDataObject) => string) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const options = { pageSize: PAGE_SIZE, cursor: paginationToken || undefined };
		const page = await erpListPage.call(this, path, filter ? { q: filter } : {}, options);
		return {
			results: page.data.map((record) => ({ name: name(record), value: String(record.id) })),
			paginationToken: page.nextCursor,
		};
	};
}

const searchArticles = searchByText(
	'/articles',
	(article) => `${String(article.reference)} · ${String(article.designation)}`,
);

const searchClients = searchByText(
	'/clients',
	(client) => `${String(client.nom)} (${String(client.email)})`,
);

/** Pages read per call when filtering invoices, which the API cannot search by text. */
const INVOICE_SCAN_PAGES = 5;

/** Invoices in API order; a filter is matched here on number, ID and external reference. */
async function searchInvoices(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const wanted = filter?.trim().toLowerCase() ?? '';
	const results: INodeListSearchItems[] = [];
	let cursor = paginationToken;
	for (let pages = 0; pages < (wanted ? INVOICE_SCAN_PAGES : 1); pages++) {
		const options = { pageSize: wanted ? 100 : PAGE_SIZE, cursor: cursor || undefined };
		const page = await erpListPage.call(this, '/factures', {}, options);
		for (const invoice of page.data) {
			const text = [invoice.numero, invoice.id, invoice.reference_externe].map(String).join(' ');
			if (wanted && !text.toLowerCase().includes(wanted)) continue;
			results.push({
				name: `${String(invoice.numero)} · ${money(invoice.total_ttc)} · ${String(invoice.statut)}${
					invoice.reference_externe ? ` · ${String(invoice.reference_externe)}` : ''
				}`,
				value: String(invoice.id),
			});
		}
		cursor = page.nextCursor;
		if (!cursor) break;
	}
	return { results, paginationToken: cursor };
}

/** Articles read, at most, to collect the categories (10 pages of 100). */
const CATEGORY_SCAN_LIMIT = 1000;

/**
 * The API has no category list: categories come from the `categorie` of at most CATEGORY_SCAN_LIMIT
 * articles. One used only by later articles can still be given by ID through an expression.
 */
async function getCategories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const categories = new Map<string, string>();
	const options = { pageSize: 100, max: CATEGORY_SCAN_LIMIT };
	for await (const page of erpPaginate.call(this, '/articles', {}, options)) {
		for (const article of page) {
			const categorie = article.categorie as IDataObject | undefined;
			if (categorie && typeof categorie.id === 'string') {
				categories.set(categorie.id, String(categorie.nom ?? categorie.id));
			}
		}
	}
	return [...categories]
		.map(([value, name]) => ({ name, value }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

export const listSearch = { searchArticles, searchClients, searchInvoices };
export const loadOptions = { getCategories };
