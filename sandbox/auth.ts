// API keys (demo and test-only), bearer credential resolution, scopes.
import { randomBytes } from 'node:crypto';
import { ApiError } from './http';
import { SCOPES, type Scope } from './schemas';

export const DEMO_KEYS = { full: 'sk_test_demo_full', readonly: 'sk_test_demo_readonly' } as const;
export const READ_SCOPES: Scope[] = [
	'articles:read',
	'clients:read',
	'factures:read',
	'compta:read',
];

export interface Credential {
	kind: 'apiKey' | 'oauth';
	/** Rate-limit / idempotency bucket: one per key, one per OAuth grant. */
	bucket: string;
	scopes: ReadonlySet<Scope>;
	/** Who made the request, for the audit journal: the key's name (never its value) or the OAuth client_id. */
	actor: string;
}

interface KeyRecord {
	name: string;
	scopes: Scope[];
	revoked: boolean;
}

export class KeyRegistry {
	private keys = new Map<string, KeyRecord>();

	constructor() {
		this.reset();
	}

	reset(): void {
		this.keys = new Map([
			[DEMO_KEYS.full, { name: 'Demo (all scopes)', scopes: [...SCOPES], revoked: false }],
			[DEMO_KEYS.readonly, { name: 'Demo (read only)', scopes: [...READ_SCOPES], revoked: false }],
		]);
	}

	create(scopes: Scope[], name = 'Test key'): string {
		const key = `sk_test_${randomBytes(18).toString('base64url')}`;
		this.keys.set(key, { name, scopes: [...new Set(scopes)], revoked: false });
		return key;
	}

	/** false when the key is unknown. */
	revoke(key: string): boolean {
		const record = this.keys.get(key);
		if (!record) return false;
		record.revoked = true;
		return true;
	}

	get(key: string): KeyRecord | undefined {
		return this.keys.get(key);
	}
}

export interface AccessTokenInfo {
	grantId: string;
	clientId: string;
	scopes: Scope[];
	expiresAt: number;
}

/**
 * Resolves `Authorization: Bearer <key or access token>`.
 * Returns the credential, or the 401 to answer.
 */
export function authenticate(
	header: string | undefined,
	keys: KeyRegistry,
	lookupToken: (token: string) => AccessTokenInfo | undefined,
	nowMs: number,
): Credential | ApiError {
	const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
	if (!m) {
		return new ApiError(
			401,
			'missing_credentials',
			'Send an API key or an access token as Authorization: Bearer <credential>',
		);
	}
	const value = m[1];
	if (value.startsWith('sk_live_')) {
		return new ApiError(
			401,
			'live_key_not_accepted',
			'This is the sandbox: live keys (sk_live_) are not accepted here. Use a sandbox key (sk_test_).',
		);
	}
	const key = keys.get(value);
	if (key) {
		if (key.revoked) return new ApiError(401, 'api_key_revoked', 'This API key has been revoked');
		return {
			kind: 'apiKey',
			bucket: `key:${value}`,
			scopes: new Set(key.scopes),
			actor: key.name,
		};
	}
	const token = lookupToken(value);
	if (token) {
		if (token.expiresAt <= nowMs)
			return new ApiError(401, 'token_expired', 'The access token has expired; refresh it');
		return {
			kind: 'oauth',
			bucket: `grant:${token.grantId}`,
			scopes: new Set(token.scopes),
			actor: token.clientId,
		};
	}
	return new ApiError(401, 'invalid_api_key', 'The API key or access token is not valid');
}

export function requireScopes(credential: Credential, needed: Scope[]): void {
	const missing = needed.filter((s) => !credential.scopes.has(s));
	if (missing.length) {
		throw new ApiError(
			403,
			'insufficient_scope',
			`This request needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
			missing.map((s) => ({ field: 'scope', message: `Missing scope ${s}` })),
		);
	}
}
