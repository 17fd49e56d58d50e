/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// OAuth 2.0 Authorization Code + PKCE (S256) with refresh-token rotation.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AccessTokenInfo } from './auth';
import type { Reply } from './http';
import { SCOPES, type Scope } from './schemas';

export const DEMO_OAUTH_CLIENT = {
	clientId: 'erp_demo_client',
	clientSecret: 'erp_demo_secret',
} as const;
const DEFAULT_SCOPES: Scope[] = ['articles:read', 'clients:read', 'factures:read'];

export interface TokenLifetimes {
	accessTokenSeconds: number;
	refreshTokenSeconds: number;
	codeSeconds: number;
}
export const DEFAULT_TOKEN_LIFETIMES: TokenLifetimes = {
	accessTokenSeconds: 3600,
	refreshTokenSeconds: 30 * 86400,
	codeSeconds: 600,
};

interface CodeRecord {
	clientId: string;
	redirectUri: string;
	scopes: Scope[];
	challenge: string;
	expiresAt: number;
	used: boolean;
	grantId: string;
}
interface RefreshRecord {
	clientId: string;
	grantId: string;
	scopes: Scope[];
	expiresAt: number;
	used: boolean;
}

const token = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
const oauthError = (
	status: number,
	error: string,
	description: string,
	headers: Record<string, string> = {},
): Reply => ({
	status,
	body: { error, error_description: description },
	headers: { 'Cache-Control': 'no-store', ...headers },
});
const sameText = (a: string, b: string) => {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
};

export class OAuthServer {
	private codes = new Map<string, CodeRecord>();
	private access = new Map<string, AccessTokenInfo>();
	private refresh = new Map<string, RefreshRecord>();
	private grants = 0;

	constructor(private readonly lifetimes: () => TokenLifetimes) {}

	lookup(accessToken: string): AccessTokenInfo | undefined {
		return this.access.get(accessToken);
	}

	/**
	 * GET /oauth/authorize. The sandbox approves at once and redirects with `code` and `state`;
	 * `deny=1` makes it redirect with `error=access_denied` instead.
	 */
	authorize(qs: URLSearchParams, nowMs: number): Reply {
		const clientId = qs.get('client_id');
		const redirectUri = qs.get('redirect_uri') ?? '';
		if (clientId !== DEMO_OAUTH_CLIENT.clientId)
			return oauthError(400, 'invalid_client', 'Unknown client_id');
		let target: URL;
		try {
			target = new URL(redirectUri);
			if (!/^https?:$/.test(target.protocol)) throw new Error('protocol');
		} catch {
			return oauthError(400, 'invalid_request', 'redirect_uri must be an absolute http(s) URL');
		}
		const state = qs.get('state');
		const redirect = (params: Record<string, string>): Reply => {
			for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
			if (state !== null) target.searchParams.set('state', state);
			return { status: 302, headers: { Location: target.toString(), 'Cache-Control': 'no-store' } };
		};
		if (qs.get('response_type') !== 'code') {
			return redirect({
				error: 'unsupported_response_type',
				error_description: 'response_type must be code',
			});
		}
		const challenge = qs.get('code_challenge') ?? '';
		if (qs.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
			return redirect({
				error: 'invalid_request',
				error_description: 'PKCE is required: code_challenge with code_challenge_method=S256',
			});
		}
		const requested = (qs.get('scope') ?? '').split(/[\s+]+/).filter(Boolean);
		const unknown = requested.filter((s) => !(SCOPES as readonly string[]).includes(s));
		if (unknown.length)
			return redirect({
				error: 'invalid_scope',
				error_description: `Unknown scope ${unknown.join(' ')}`,
			});
		if (qs.get('deny') === '1')
			return redirect({ error: 'access_denied', error_description: 'The user refused access' });
		const code = token('code_');
		this.grants += 1;
		this.codes.set(code, {
			clientId,
			redirectUri,
			scopes: requested.length ? [...new Set(requested as Scope[])] : DEFAULT_SCOPES,
			challenge,
			expiresAt: nowMs + this.lifetimes().codeSeconds * 1000,
			used: false,
			grantId: `g${this.grants}`,
		});
		return redirect({ code });
	}

	/** POST /oauth/token (form-encoded or JSON; client auth by HTTP Basic or in the body). */
	token(headers: IncomingHttpHeaders, rawBody: string, nowMs: number): Reply {
		const params = parseParams(headers['content-type'] ?? '', rawBody);
		if (!params)
			return oauthError(
				400,
				'invalid_request',
				'The body must be application/x-www-form-urlencoded or JSON',
			);
		let clientId = params.get('client_id') ?? '';
		let clientSecret = params.get('client_secret') ?? '';
		const basic = /^Basic\s+(\S+)/i.exec(headers.authorization ?? '');
		if (basic) {
			const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
			const i = decoded.indexOf(':');
			clientId = formDecode(decoded.slice(0, i));
			clientSecret = formDecode(decoded.slice(i + 1));
		}
		if (
			clientId !== DEMO_OAUTH_CLIENT.clientId ||
			!sameText(clientSecret, DEMO_OAUTH_CLIENT.clientSecret)
		) {
			return oauthError(401, 'invalid_client', 'Client authentication failed', {
				'WWW-Authenticate': 'Basic realm="erp-sandbox"',
			});
		}
		const grantType = params.get('grant_type');
		if (grantType === 'authorization_code') return this.exchangeCode(params, clientId, nowMs);
		if (grantType === 'refresh_token') return this.rotate(params, clientId, nowMs);
		return oauthError(
			400,
			'unsupported_grant_type',
			'grant_type must be authorization_code or refresh_token',
		);
	}

	private exchangeCode(params: URLSearchParams, clientId: string, nowMs: number): Reply {
		const code = params.get('code') ?? '';
		const record = this.codes.get(code);
		if (!record || record.clientId !== clientId)
			return oauthError(400, 'invalid_grant', 'Unknown authorization code');
		if (record.used) {
			// A replayed code may be stolen: revoke what it gave.
			this.revokeGrant(record.grantId);
			return oauthError(400, 'invalid_grant', 'The authorization code was already used');
		}
		record.used = true;
		if (record.expiresAt <= nowMs)
			return oauthError(400, 'invalid_grant', 'The authorization code has expired');
		if (params.get('redirect_uri') !== record.redirectUri) {
			return oauthError(
				400,
				'invalid_grant',
				'redirect_uri does not match the authorization request',
			);
		}
		const verifier = params.get('code_verifier') ?? '';
		if (!verifier) return oauthError(400, 'invalid_request', 'code_verifier is required');
		const expected = createHash('sha256').update(verifier).digest('base64url');
		if (!sameText(expected, record.challenge))
			return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
		return this.issue(clientId, record.grantId, record.scopes, nowMs);
	}

	private rotate(params: URLSearchParams, clientId: string, nowMs: number): Reply {
		const old = params.get('refresh_token') ?? '';
		const record = this.refresh.get(old);
		if (!record || record.clientId !== clientId)
			return oauthError(400, 'invalid_grant', 'Unknown refresh token');
		if (record.used)
			return oauthError(
				400,
				'invalid_grant',
				'The refresh token was already used (tokens rotate at each refresh)',
			);
		if (record.expiresAt <= nowMs)
			return oauthError(400, 'invalid_grant', 'The refresh token has expired');
		let scopes = record.scopes;
		const asked = (params.get('scope') ?? '').split(/[\s+]+/).filter(Boolean);
		if (asked.length) {
			if (asked.some((s) => !record.scopes.includes(s as Scope))) {
				return oauthError(400, 'invalid_scope', 'A refresh cannot add scopes');
			}
			scopes = asked as Scope[];
		}
		record.used = true;
		return this.issue(clientId, record.grantId, scopes, nowMs);
	}

	private issue(clientId: string, grantId: string, scopes: Scope[], nowMs: number): Reply {
		const life = this.lifetimes();
		const accessToken = token('at_');
		const refreshToken = token('rt_');
		this.access.set(accessToken, {
			grantId,
			clientId,
			scopes,
			expiresAt: nowMs + life.accessTokenSeconds * 1000,
		});
		this.refresh.set(refreshToken, {
			clientId,
			grantId,
			scopes,
			expiresAt: nowMs + life.refreshTokenSeconds * 1000,
			used: false,
		});
		return {
			status: 200,
			headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
			body: {
				access_token: accessToken,
				token_type: 'Bearer',
				expires_in: Math.round(life.accessTokenSeconds),
				refresh_token: refreshToken,
				scope: scopes.join(' '),
			},
		};
	}

	private revokeGrant(grantId: string): void {
		for (const [k, v] of this.access) if (v.grantId === grantId) this.access.delete(k);
		for (const [k, v] of this.refresh) if (v.grantId === grantId) this.refresh.delete(k);
	}
}

function parseParams(contentType: string, raw: string): URLSearchParams | undefined {
	if (contentType.includes('application/json')) {
		try {
			const obj: unknown = JSON.parse(raw);
			if (!obj || typeof obj !== 'object') return undefined;
			return new URLSearchParams(
				Object.entries(obj as Record<string, unknown>).map(
					([k, v]) => [k, String(v)] as [string, string],
				),
			);
		} catch {
			return undefined;
		}
	}
	return new URLSearchParams(raw);
}

/** RFC 6749 2.3.1: Basic credentials are form-encoded; fall back to the raw text when they are not. */
function formDecode(s: string): string {
	try {
		return decodeURIComponent(s.replace(/\+/g, ' '));
	} catch {
		return s;
	}
}
