// In-memory data: sorted collections with O(1) cursor lookup, and the deterministic seed.
import { ApiError } from './http';
import type {
	Article,
	AuditEntry,
	Bulletin,
	Client,
	Ecriture,
	Facture,
	Mouvement,
	Reglement,
} from './schemas';
import { limitSchema } from './schemas';

/** Small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export interface Page<T> {
	data: T[];
	pagination: { total: number; next_cursor: string | null };
}

/**
 * A collection kept in id order. Ids are `<prefix>_<zero-padded counter>`, so appending keeps the
 * array sorted and the cursor (the last item's id) maps to an index in O(1). Items can be removed
 * (a deleted article); a cursor naming a removed item still continues after it.
 */
export class Collection<T extends { id: string }> {
	private items: T[] = [];
	private index = new Map<string, number>();
	private counter = 0;
	private totals = new Map<string, number>();
	private removed = new Set<string>();

	constructor(readonly prefix: string) {}

	nextId(): string {
		this.counter += 1;
		return `${this.prefix}_${String(this.counter).padStart(8, '0')}`;
	}

	add(item: T): T {
		this.index.set(item.id, this.items.length);
		this.items.push(item);
		if (this.totals.size) this.totals.clear();
		return item;
	}

	get(id: string): T | undefined {
		const i = this.index.get(id);
		return i === undefined ? undefined : this.items[i];
	}

	/** Removes the item with this id; false when there is none. */
	remove(id: string): boolean {
		const i = this.index.get(id);
		if (i === undefined) return false;
		this.items.splice(i, 1);
		this.removed.add(id);
		this.reindex();
		return true;
	}

	/** Forgets the `count` oldest items (a bounded journal); cursors naming them expire. */
	dropOldest(count: number): void {
		this.items.splice(0, count);
		this.reindex();
	}

	private reindex(): void {
		this.index = new Map(this.items.map((item, i) => [item.id, i]));
		this.totals.clear();
	}

	/** Call after changing an item in place (filtered totals may change). */
	touched(): void {
		this.totals.clear();
	}

	get size(): number {
		return this.items.length;
	}

	all(): readonly T[] {
		return this.items;
	}

	/**
	 * One page of the list envelope. `filterKey` names the filter (for the cached total);
	 * without a filter the page is a slice.
	 */
	page(query: ListQuery, filter?: (item: T) => boolean, filterKey = ''): Page<T> {
		let start = 0;
		if (query.cursor !== undefined) {
			const i = this.index.get(query.cursor);
			if (i !== undefined) start = i + 1;
			else if (this.removed.has(query.cursor)) {
				const cursor = query.cursor;
				const next = this.items.findIndex((item) => item.id > cursor);
				start = next === -1 ? this.items.length : next;
			} else throw invalidQuery('cursor', 'Unknown or expired cursor');
		}
		const { limit } = query;
		if (!filter) {
			const data = this.items.slice(start, start + limit);
			const more = start + limit < this.items.length;
			return {
				data,
				pagination: {
					total: this.items.length,
					next_cursor: more && data.length ? data[data.length - 1].id : null,
				},
			};
		}
		let total = this.totals.get(filterKey);
		if (total === undefined) {
			total = 0;
			for (const item of this.items) if (filter(item)) total++;
			this.totals.set(filterKey, total);
		}
		const data: T[] = [];
		let more = false;
		for (let i = start; i < this.items.length; i++) {
			if (!filter(this.items[i])) continue;
			if (data.length === limit) {
				more = true;
				break;
			}
			data.push(this.items[i]);
		}
		return { data, pagination: { total, next_cursor: more ? data[data.length - 1].id : null } };
	}
}

export interface ListQuery {
	limit: number;
	cursor?: string;
}

export function invalidQuery(field: string, message: string): ApiError {
	return new ApiError(400, 'invalid_query', `Invalid query parameter ${field}`, [
		{ field, message },
	]);
}

/** Reads `limit` and `cursor` from the query string (400 `invalid_query` when wrong). */
export function listQuery(qs: URLSearchParams): ListQuery {
	const rawLimit = qs.get('limit');
	const limit = limitSchema.safeParse(rawLimit === null || rawLimit === '' ? undefined : rawLimit);
	if (!limit.success || (rawLimit !== null && !/^\d+$/.test(rawLimit.trim()))) {
		throw invalidQuery('limit', 'limit must be an integer from 1 to 100');
	}
	const cursor = qs.get('cursor');
	return { limit: limit.data, cursor: cursor === null || cursor === '' ? undefined : cursor };
}

export interface Categorie {
	id: string;
	nom: string;
}

export const CATEGORIES: Categorie[] = [
	{ id: 'cat_divers', nom: 'Divers' },
	{ id: 'cat_informatique', nom: 'Informatique' },
	{ id: 'cat_mobilier', nom: 'Mobilier' },
	{ id: 'cat_fournitures', nom: 'Fournitures de bureau' },
	{ id: 'cat_electromenager', nom: 'Électroménager' },
	{ id: 'cat_outillage', nom: 'Outillage' },
	{ id: 'cat_alimentation', nom: 'Alimentation' },
];

export class Store {
	articles = new Collection<Article>('art');
	clients = new Collection<Client>('cli');
	factures = new Collection<Facture>('fac');
	reglements = new Collection<Reglement>('reg');
	mouvements = new Collection<Mouvement>('mvt');
	ecritures = new Collection<Ecriture>('ecr');
	bulletins = new Collection<Bulletin>('bul');
	/** The audit journal: every /v1 request, the latest AUDIT_JOURNAL_MAX kept. */
	audit = new Collection<AuditEntry>('aud');
	categories = new Map(CATEGORIES.map((c) => [c.id, c]));
	/** reference -> article id */
	articleRefs = new Map<string, string>();
	/** lower-cased email -> client id */
	clientEmails = new Map<string, string>();
	factureNumero = 0;
}

const NOUNS: Record<string, string[]> = {
	cat_divers: ['Coffret cadeau', 'Carte cadeau', 'Sac réutilisable', 'Parapluie', 'Lampe de poche'],
	cat_informatique: [
		'Clavier',
		'Souris',
		'Écran',
		'Câble USB-C',
		'Disque SSD',
		'Casque audio',
		'Webcam',
	],
	cat_mobilier: ['Chaise', 'Bureau', 'Étagère', 'Armoire', 'Table basse', 'Lampe'],
	cat_fournitures: ['Stylo', 'Cahier', 'Classeur', 'Agrafeuse', 'Ramette papier', 'Surligneur'],
	cat_electromenager: ['Bouilloire', 'Cafetière', 'Grille-pain', 'Micro-ondes', 'Aspirateur'],
	cat_outillage: ['Perceuse', 'Tournevis', 'Marteau', 'Scie', 'Niveau laser', 'Clé à molette'],
	cat_alimentation: ['Café moulu', 'Thé vert', 'Biscuits', "Huile d'olive", 'Miel'],
};
const ADJECTIVES = [
	'standard',
	'pro',
	'compact',
	'premium',
	'éco',
	'XL',
	'mini',
	'noir',
	'blanc',
	'bleu',
];
const TVA_RATES = [2000, 2000, 2000, 2000, 1000, 550, 210];
const COMPANIES = [
	'Boulangerie Martin',
	'Garage Dupuis',
	'Librairie du Centre',
	'Hôtel des Alpes',
	'Cabinet Leroy',
	'Pharmacie Moreau',
	'Atelier Bernard',
	'Fleurs & Co',
	'Café de la Gare',
	'Transports Petit',
	'Menuiserie Roux',
	'Boucherie Fournier',
	'Optique Girard',
	'Pressing Bonnet',
	'Camping Les Pins',
	'Restaurant Le Lys',
	'Imprimerie Lambert',
	'Auto-école Fontaine',
	'Salon Mercier',
	'Épicerie Blanc',
	'Plomberie Guerin',
	'Studio Boyer',
	'Ferme Garnier',
	'Cave Chevalier',
	'Agence Francois',
	'Crèche Legrand',
	'Clinique Gauthier',
	'Traiteur Perrin',
	'Cordonnerie Robin',
	'Vélo Clément',
];
/** Fixed clock for seeded records, so the seed is identical from run to run. */
export const SEED_EPOCH = Date.UTC(2026, 0, 5, 8, 0, 0);

export function slug(s: string): string {
	return s
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '');
}

/**
 * The first articles are the ones the examples sell (their SKU table maps MUG-BLUE, MUG-RED,
 * TEE-M and TEE-L to REF-000001..4): fixed, so that a search for "mug" finds mugs and the
 * demo's second order brings the red mug to its low-stock threshold. The random draws are made
 * for them as for any article, so the rest of the seed does not move.
 */
const DEMO_ARTICLES = [
	{ designation: 'Mug émaillé bleu', prix_ht: 1250, tva: 2000, stock: 120, seuil_alerte: 10 },
	{ designation: 'Mug émaillé rouge', prix_ht: 1250, tva: 2000, stock: 24, seuil_alerte: 10 },
	{ designation: 'T-shirt coton M', prix_ht: 1990, tva: 2000, stock: 80, seuil_alerte: 5 },
	{ designation: 'T-shirt coton L', prix_ht: 1990, tva: 2000, stock: 80, seuil_alerte: 5 },
] as const;

/** Articles and clients. Invoices are seeded by business.ts through the real business rules. */
export function seedStore(store: Store, seed: number, articleCount: number): void {
	const random = rng(seed);
	const at = new Date(SEED_EPOCH).toISOString();
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
	for (let i = 1; i <= articleCount; i++) {
		const categorie = CATEGORIES[i % CATEGORIES.length];
		const designation = `${pick(NOUNS[categorie.id])} ${pick(ADJECTIVES)}`;
		const low = random() < 0.2;
		const seuil = low ? 5 + Math.floor(random() * 16) : 0;
		const stock = low ? seuil + Math.floor(random() * 6) : Math.floor(random() * 500);
		const reference = `REF-${String(i).padStart(6, '0')}`;
		const drawn = {
			designation,
			prix_ht: 100 + Math.floor(random() * 2000) * 50,
			tva: pick(TVA_RATES),
			stock,
			seuil_alerte: seuil,
			categorie,
		};
		const demo = i <= DEMO_ARTICLES.length ? DEMO_ARTICLES[i - 1] : undefined;
		const article = store.articles.add({
			id: store.articles.nextId(),
			reference,
			...drawn,
			...(demo ? { ...demo, categorie: CATEGORIES[0] } : {}),
			created_at: at,
			updated_at: at,
		});
		store.articleRefs.set(reference, article.id);
	}
	COMPANIES.forEach((nom, i) => {
		const email = `contact@${slug(nom)}.example`;
		const client = store.clients.add({
			id: store.clients.nextId(),
			nom,
			email,
			telephone: `+33 1 ${String(40 + i).padStart(2, '0')} ${String(Math.floor(random() * 100)).padStart(2, '0')} 00 00`,
			adresse: `${1 + Math.floor(random() * 120)} rue de la République, 69000 Lyon`,
			created_at: new Date(SEED_EPOCH + i * 60000).toISOString(),
		});
		store.clientEmails.set(email, client.id);
	});
}

/** Employees of the seeded payroll: name and monthly gross salary in cents. */
const EMPLOYEES: Array<[string, number]> = [
	['Alice Martin', 320000],
	['Bruno Lefèvre', 285000],
	['Chloé Dubois', 410000],
	['David Moreau', 250000],
	['Emma Laurent', 365000],
	['Farid Benali', 298000],
	['Gaëlle Simon', 450000],
	['Hugo Michel', 231000],
];
/** The months of the seeded payroll, each paid on the last working day or so. */
export const PAYROLL_PERIODS = ['2025-10', '2025-11', '2025-12'];

/** Payroll slips (bulletins de paie): one per employee and period, in period then employee order. */
export function seedBulletins(store: Store): void {
	for (const periode of PAYROLL_PERIODS) {
		EMPLOYEES.forEach(([nom, brut], i) => {
			// Employee contributions: 22 % of the gross salary, rounded down to the cent.
			const cotisations = Math.floor((brut * 22) / 100);
			store.bulletins.add({
				id: store.bulletins.nextId(),
				salarie_id: `sal_${String(i + 1).padStart(8, '0')}`,
				salarie_nom: nom,
				periode,
				salaire_brut: brut,
				cotisations_salariales: cotisations,
				net_a_payer: brut - cotisations,
				statut: 'valide',
				date_paiement: `${periode}-28`,
			});
		});
	}
}
