// The one place that decides whether a request may leave, called by the credentials' `authenticate`
// (which also covers the credential test and the HTTP Request node), by the transport before every
// request, and by the trigger. Pure; messages never contain the key.

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The base URL without trailing slashes, not checked (see `credentialProblem`). */
export function normalizeBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

export function baseUrlProblem(baseUrl: unknown): string | undefined {
	const normalized = normalizeBaseUrl(baseUrl);
	if (normalized === '') {
		return 'The credential has no Base URL. Enter the API address, ending in /v1 (for example https://erp.example.com/v1).';
	}
	let url: URL;
	try {
		url = new URL(normalized);
	} catch {
		return "The credential's Base URL is not a valid address. Enter the API address, ending in /v1 (for example https://erp.example.com/v1).";
	}
	const loopback = url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);
	if (url.protocol !== 'https:' && !loopback) {
		return `The credential's Base URL must use https:// (the ERP API refuses unencrypted requests). Plain http:// is only allowed for a local server (localhost, 127.0.0.1, [::1]); got ${url.protocol}//${url.host}.`;
	}
	if (url.search !== '' || url.hash !== '') {
		return "The credential's Base URL must not contain a query string or fragment; enter the API address ending in /v1.";
	}
	if (!url.pathname.replace(/\/+$/, '').endsWith('/v1')) {
		return "The credential's Base URL must end in /v1 (the API version segment), for example https://erp.example.com/v1.";
	}
	return undefined;
}

/** The address fields of a request n8n builds. */
type Target = { url?: unknown; uri?: unknown; baseURL?: unknown };

/**
 * Where an n8n request goes, as its HTTP clients resolve it: `url`, else the legacy `uri` (sent by
 * the HTTP Request node, `requestWithAuthentication`) against `baseURL`; undefined if no valid URL.
 */
export function requestTarget(request: Target): URL | undefined {
	const relative = String(request.url ?? request.uri ?? '');
	const base = String(request.baseURL ?? '');
	if (relative === '' && base === '') return undefined;
	try {
		return base === '' ? new URL(relative) : new URL(relative, base);
	} catch {
		return undefined;
	}
}

/**
 * Problem unless the request goes to the credential's own Base URL origin: so the HTTP Request node
 * cannot carry a sandbox key to production, nor any key to a third party or an unknown address.
 */
export function requestTargetProblem(baseUrl: unknown, request: Target): string | undefined {
	const base = new URL(normalizeBaseUrl(baseUrl));
	const target = requestTarget(request);
	if (target === undefined) {
		return `This ERP credential only sends its API key to its own Base URL (${base.origin}), and the address of this request cannot be determined. Enter a full address starting with ${base.origin}.`;
	}
	if (target.origin !== base.origin) {
		return `This ERP credential only sends its API key to its own Base URL (${base.origin}); the request goes to ${target.origin}. Use a credential made for that address.`;
	}
	return undefined;
}

/** Problem with the API key versus the environment, or undefined when it is acceptable. */
export function apiKeyProblem(apiKey: unknown, environment: unknown): string | undefined {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (key === '') {
		return 'The credential has no API key. Create one in the ERP under Settings > API > Keys and paste it into the credential.';
	}
	const sandbox = environment === 'sandbox'; // missing: Production, the default
	if (key.startsWith('sk_test_') && !sandbox) {
		return "This API key is a sandbox key (sk_test_) but the credential's Environment is Production. Use a production key (sk_live_) or set Environment to Sandbox, with the sandbox Base URL.";
	}
	if (key.startsWith('sk_live_') && sandbox) {
		return "This API key is a production key (sk_live_) but the credential's Environment is Sandbox. Use a sandbox key (sk_test_) or set Environment to Production, with the production Base URL.";
	}
	if (/^sk_(test|live)_/.test(key)) return undefined;
	return 'This is not an ERP API key: keys start with sk_live_ (production) or sk_test_ (sandbox). Check that the whole key was pasted.';
}

/** All checks (an OAuth2 credential has no key to check): the first problem, or undefined. */
export function credentialProblem(
	credentials: { apiKey?: unknown; environment?: unknown; baseUrl?: unknown },
	kind: 'apiKey' | 'oAuth2',
): string | undefined {
	const env = credentials.environment;
	if (env !== undefined && env !== '' && env !== 'production' && env !== 'sandbox') {
		return "The credential's Environment must be Production or Sandbox.";
	}
	const urlProblem = baseUrlProblem(credentials.baseUrl);
	if (urlProblem !== undefined || kind !== 'apiKey') return urlProblem;
	return apiKeyProblem(credentials.apiKey, env);
}
