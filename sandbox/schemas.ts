// The single description of every resource and request body of the sandbox (zod/v4).
import { z } from 'zod/v4';
import { RATE_LIMIT_ALGORITHMS } from './limiters';
import { RATE_LIMIT_HEADER_DIALECTS } from './rateLimitHeaders';

export const SCOPES = [
	'articles:read',
	'articles:write',
	'clients:read',
	'clients:write',
	'factures:read',
	'factures:write',
	'compta:read',
	'compta:write',
	'paie:read',
	'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];
export const scopeSchema = z.enum(SCOPES);

export const EVENT_TYPES = [
	'vente.creee',
	'facture.payee',
	'stock.bas',
	'paie.validee',
	'tva.declaree',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Read scope a webhook subscriber needs for each event (docs/api-contract.md, "Scopes"). */
export const EVENT_SCOPES: Record<EventType, Scope> = {
	'vente.creee': 'factures:read',
	'facture.payee': 'factures:read',
	'stock.bas': 'articles:read',
	'tva.declaree': 'compta:read',
	'paie.validee': 'paie:read',
};

const isoDate = z
	.string()
	.regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date YYYY-MM-DD')
	.refine(
		(s) => !Number.isNaN(Date.parse(s)) && new Date(s).toISOString().startsWith(s),
		'Invalid date',
	);
const money = z.int().min(0).max(1e12);
const text = (max = 500) => z.string().trim().min(1).max(max);

// ---------- resources ----------
export const categorieSchema = z.object({ id: z.string(), nom: z.string() });

export const articleSchema = z.object({
	id: z.string(),
	reference: z.string(),
	designation: z.string(),
	prix_ht: z.int(),
	tva: z.int(),
	stock: z.int(),
	seuil_alerte: z.int(),
	categorie: categorieSchema,
	created_at: z.string(),
	updated_at: z.string(),
});
export type Article = z.infer<typeof articleSchema>;

export const clientSchema = z.object({
	id: z.string(),
	nom: z.string(),
	email: z.string(),
	telephone: z.string().nullable(),
	adresse: z.string().nullable(),
	created_at: z.string(),
});
export type Client = z.infer<typeof clientSchema>;

export const FACTURE_STATUTS = ['emise', 'partiellement_payee', 'payee'] as const;
export const ligneFactureSchema = z.object({
	article_id: z.string(),
	reference: z.string(),
	designation: z.string(),
	quantite: z.int(),
	prix_ht: z.int(),
	tva: z.int(),
	total_ht: z.int(),
	total_tva: z.int(),
	total_ttc: z.int(),
});
export const factureSchema = z.object({
	id: z.string(),
	numero: z.string(),
	client_id: z.string(),
	statut: z.enum(FACTURE_STATUTS),
	date: z.string(),
	lignes: z.array(ligneFactureSchema),
	total_ht: z.int(),
	total_tva: z.int(),
	total_ttc: z.int(),
	montant_regle: z.int(),
	reste_a_payer: z.int(),
	reference_externe: z.string().nullable(),
	created_at: z.string(),
});
export type Facture = z.infer<typeof factureSchema>;

export const MODES_REGLEMENT = ['virement', 'carte', 'cheque', 'especes', 'prelevement'] as const;
export const reglementSchema = z.object({
	id: z.string(),
	facture_id: z.string(),
	montant: z.int(),
	mode: z.enum(MODES_REGLEMENT),
	date: z.string(),
	reference: z.string().nullable(),
	created_at: z.string(),
});
export type Reglement = z.infer<typeof reglementSchema>;

export const mouvementSchema = z.object({
	id: z.string(),
	article_id: z.string(),
	type: z.enum(['entree', 'sortie', 'ajustement']),
	quantite: z.int(),
	stock_apres: z.int(),
	origine: z.enum(['facture', 'manuel']),
	document_id: z.string().nullable(),
	date: z.string(),
});
export type Mouvement = z.infer<typeof mouvementSchema>;

export const ecritureSchema = z.object({
	id: z.string(),
	date: z.string(),
	journal: z.enum(['VT', 'BQ']),
	piece: z.string(),
	compte: z.string(),
	libelle: z.string(),
	debit: z.int(),
	credit: z.int(),
});
export type Ecriture = z.infer<typeof ecritureSchema>;

// Endpoints beyond the spec's table (docs/api-contract.md): payroll slips and the audit journal.
export const bulletinSchema = z.object({
	id: z.string(),
	salarie_id: z.string(),
	salarie_nom: z.string(),
	periode: z.string(),
	salaire_brut: z.int(),
	cotisations_salariales: z.int(),
	net_a_payer: z.int(),
	statut: z.literal('valide'),
	date_paiement: z.string(),
});
export type Bulletin = z.infer<typeof bulletinSchema>;

export const auditEntrySchema = z.object({
	id: z.string(),
	date: z.string(),
	/** `api_key` (acteur = the key's name, never its value), `oauth` (acteur = client_id), or null. */
	acteur_type: z.enum(['api_key', 'oauth']).nullable(),
	acteur: z.string().nullable(),
	methode: z.string(),
	endpoint: z.string(),
	statut_http: z.int(),
	ip: z.string(),
	latence_ms: z.int(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const webhookSchema = z.object({
	id: z.string(),
	url: z.string(),
	events: z.array(z.string()),
	description: z.string().nullable(),
	status: z.enum(['active', 'disabled']),
	created_at: z.string(),
});
export type Webhook = z.infer<typeof webhookSchema> & { secret: string };

export const eventSchema = z.object({
	id: z.string(),
	type: z.enum(EVENT_TYPES),
	created_at: z.string(),
	data: z.record(z.string(), z.unknown()),
});
export type ErpEvent = z.infer<typeof eventSchema>;

// ---------- request bodies ----------
export const articleCreateSchema = z.object({
	reference: text(100),
	designation: text(),
	prix_ht: money,
	tva: z.int().min(0).max(10000),
	stock: z.int().min(0).max(1e9).default(0),
	categorie_id: z.string().optional(),
	seuil_alerte: z.int().min(0).max(1e9).default(0),
});
export const articleUpdateSchema = z.object({
	reference: text(100).optional(),
	designation: text().optional(),
	prix_ht: money.optional(),
	tva: z.int().min(0).max(10000).optional(),
	stock: z.int().min(0).max(1e9).optional(),
	categorie_id: z.string().optional(),
	seuil_alerte: z.int().min(0).max(1e9).optional(),
});

export const clientCreateSchema = z.object({
	nom: text(200),
	email: z.email().max(200),
	telephone: z.string().max(50).nullable().optional(),
	adresse: z.string().max(500).nullable().optional(),
});
export const clientUpdateSchema = clientCreateSchema.partial();

export const factureCreateSchema = z.object({
	client_id: z.string(),
	lignes: z
		.array(
			z.object({
				article_id: z.string(),
				quantite: z.int().min(1).max(1e6),
				prix_ht: money.optional(),
			}),
		)
		.min(1)
		.max(200),
	date: isoDate.optional(),
	reference_externe: z.string().max(200).nullable().optional(),
});

export const reglementCreateSchema = z.object({
	facture_id: z.string(),
	montant: z.int().min(1).max(1e12),
	mode: z.enum(MODES_REGLEMENT),
	date: isoDate.optional(),
	reference: z.string().max(200).nullable().optional(),
});

export const webhookCreateSchema = z.object({
	url: z.url({ protocol: /^https?$/ }),
	events: z.array(z.enum([...EVENT_TYPES, '*'])).min(1),
	description: z.string().max(500).nullable().optional(),
});

// ---------- query strings ----------
export const limitSchema = z.coerce.number().int().min(1).max(100).default(20);
export const dateQuerySchema = isoDate;

// ---------- control API ----------
export const controlConfigSchema = z.object({
	rateLimit: z
		.union([
			z.literal(false),
			z.object({
				limit: z.int().min(1),
				windowSeconds: z.number().positive(),
				algorithm: z.enum(RATE_LIMIT_ALGORITHMS).optional(),
				burst: z.int().min(1).optional(),
			}),
		])
		.optional(),
	dailyQuota: z.int().min(1).optional(),
	maxPageSize: z.int().min(1).max(100).optional(),
	rateLimitHeaders: z.enum(RATE_LIMIT_HEADER_DIALECTS).optional(),
	idempotencyKeys: z.enum(['keep', 'ignore']).optional(),
	listFilters: z.enum(['apply', 'ignore']).optional(),
	conventions: z
		.object({
			cursorParam: z.string().min(1).optional(),
			pageSizeParam: z.string().min(1).optional(),
			itemsPath: z.string().min(1).optional(),
			nextCursorPath: z.string().min(1).optional(),
			signature: z.enum(['standard-webhooks', 'hmac-hex', 'hmac-base64']).optional(),
			signatureHeader: z.string().min(1).optional(),
			signatureAlgorithm: z.enum(['sha256', 'sha512', 'sha1']).optional(),
			signaturePrefix: z.string().optional(),
			timestampHeader: z.string().min(1).optional(),
			eventTypePath: z.string().min(1).optional(),
			eventIdPath: z.string().min(1).optional(),
			eventDataPath: z.string().min(1).optional(),
			eventTypeHeader: z.string().min(1).optional(),
		})
		.optional(),
	tokenLifetimes: z
		.object({
			accessTokenSeconds: z.number().positive().optional(),
			refreshTokenSeconds: z.number().positive().optional(),
			codeSeconds: z.number().positive().optional(),
		})
		.optional(),
	webhookRetry: z
		.object({
			baseMs: z.number().min(0).optional(),
			maxAttempts: z.int().min(1).optional(),
			timeoutMs: z.number().positive().optional(),
		})
		.optional(),
});
export type ControlConfig = z.infer<typeof controlConfigSchema>;

const faultCommon = {
	probability: z.number().min(0).max(1).optional(),
	count: z.int().min(0).optional(),
	methods: z.array(z.string().transform((m) => m.toUpperCase())).optional(),
	paths: z.array(z.string()).optional(),
};
export const faultSchema = z.discriminatedUnion('kind', [
	z.object({ kind: z.literal('status'), status: z.int().min(400).max(599), ...faultCommon }),
	z.object({ kind: z.literal('reset'), ...faultCommon }),
	z.object({ kind: z.literal('slow'), ms: z.int().min(0).max(600000), ...faultCommon }),
	z.object({ kind: z.literal('badBody'), ...faultCommon }),
	z.object({
		kind: z.literal('barrier'),
		parties: z.int().min(2).max(100),
		timeoutMs: z.int().min(1).max(600000).default(10000),
		...faultCommon,
	}),
	z.object({
		kind: z.literal('failAfterCommit'),
		status: z.int().min(400).max(599).default(500),
		...faultCommon,
	}),
]);
export type Fault = z.infer<typeof faultSchema>;
export const faultsBodySchema = z.object({
	seed: z.int().optional(),
	faults: z.array(faultSchema),
});

export const eventEmitSchema = z.object({
	type: z.enum(EVENT_TYPES),
	data: z.record(z.string(), z.unknown()).default({}),
});
/** `POST /_sandbox/deliveries/pause`: how long deliveries fail as if the receiver were down (default 1 hour). */
export const deliveriesPauseSchema = z.object({
	seconds: z.number().positive().max(86_400).default(3600),
});
export const keyCreateSchema = z.object({
	scopes: z.array(scopeSchema),
	name: z.string().max(200).optional(),
});
export const keyRevokeSchema = z.object({ key: z.string() });
export const resetSchema = z.object({
	seed: z.int().optional(),
	articles: z.int().min(0).optional(),
});
