// Credentials: the node's ERP credential after the guards, and what a request needs from it.
import { NodeOperationError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { readConventions } from '../conventions';
import { credentialProblem, normalizeBaseUrl } from '../guards';
import { secretsOf } from './apiError';
import { notConnectedError } from './errors';
import { paceKey } from './pacer';
import { authenticationOf } from './settings';
import type { ErpContext, ErpCredentialType } from './settings';

/** How the credential is read: n8n's `getCredentials` unless a caller shares reads (trigger). */
export type CredentialRead = (
	credentialType: ErpCredentialType,
	read: () => Promise<ICredentialDataDecryptedObject>,
) => Promise<ICredentialDataDecryptedObject>;

const credentialTypeOf = (authentication: 'apiKey' | 'oAuth2'): ErpCredentialType =>
	authentication === 'oAuth2' ? 'erpOAuth2Api' : 'erpApi';

// The guarded ERP credential (key prefix vs environment, https, /v1; on every call, also on a read
// shared `through`), for code sending no request. Throws naming the problem, never the key.
export async function getGuardedCredentials(
	context: ErpContext,
	itemIndex?: number,
	through?: CredentialRead,
): Promise<ICredentialDataDecryptedObject> {
	const authentication = authenticationOf(context, itemIndex);
	const credentialType = credentialTypeOf(authentication);
	const read = async () =>
		await (context as IExecuteFunctions).getCredentials(credentialType, itemIndex);
	const credentials = await (through ? through(credentialType, read) : read());
	const problem = credentialProblem(credentials, authentication);
	if (problem !== undefined) {
		throw new NodeOperationError(context.getNode(), problem, { itemIndex, level: 'warning' });
	}
	return credentials;
}

/** The credential's list conventions, checked, for code that needs them without reading a list. */
export async function getListConventions(context: ErpContext, itemIndex?: number) {
	const credentials = await getGuardedCredentials(context, itemIndex);
	return readConventions(credentials, context.getNode(), itemIndex).list;
}

function ratePerMinuteOf(
	credentials: ICredentialDataDecryptedObject,
	node: INode,
	itemIndex: number | undefined,
): number | undefined {
	const value = credentials.rateLimitPerMinute;
	if (value === undefined || value === null || value === '' || value === 0) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
		throw new NodeOperationError(
			node,
			'ERP credential › Rate Limit (Requests per Minute) must be a positive number, or 0 for none',
			{ itemIndex, level: 'warning' },
		);
	}
	return value;
}

/** What a request needs from the node and its credential, read once per request or per list. */
export async function resolveCredential(context: ErpContext, itemIndex: number | undefined) {
	const node = context.getNode();
	const authentication = authenticationOf(context, itemIndex);
	const credentialType = credentialTypeOf(authentication);
	const credentials = await getGuardedCredentials(context, itemIndex);
	if (authentication === 'oAuth2') {
		const token = credentials.oauthTokenData as { access_token?: unknown } | undefined;
		if (typeof token?.access_token !== 'string' || token.access_token === '') {
			throw notConnectedError(node, itemIndex);
		}
	}
	const baseUrl = normalizeBaseUrl(credentials.baseUrl);
	const reference = node.credentials?.[credentialType];
	// The server limits per key (or OAuth2 grant): one pacer key per credential type, base URL and
	// key (the credential itself for OAuth2, whose tokens change), named by a hash.
	const key =
		typeof credentials.apiKey === 'string' && credentials.apiKey !== ''
			? `key:${credentials.apiKey}`
			: `credential:${reference?.id ?? reference?.name ?? ''}`;
	return {
		node,
		authentication,
		credentialType,
		/** API key credentials only: handed to n8n so that it does not decrypt them again. */
		credentialsDecrypted:
			authentication === 'apiKey' && reference?.id
				? { id: reference.id, name: reference.name, type: credentialType, data: credentials }
				: undefined,
		baseUrl,
		host: new URL(baseUrl).host,
		paceKey: paceKey(credentialType, baseUrl, key),
		/** The credential's secret values, scrubbed from error texts. */
		secrets: secretsOf(credentials),
		lists: readConventions(credentials, node, itemIndex).list,
		/** The credential's Rate Limit (Requests per Minute); undefined: not set. */
		ratePerMinute: ratePerMinuteOf(credentials, node, itemIndex),
	};
}

export type ResolvedCredential = Awaited<ReturnType<typeof resolveCredential>>;

/** The secrets to scrub from an error (OAuth2 tokens may have been refreshed since). */
export async function currentSecrets(context: ErpContext, resolved: ResolvedCredential) {
	if (resolved.authentication !== 'oAuth2') return resolved.secrets;
	try {
		const fresh = await (context as IExecuteFunctions).getCredentials(resolved.credentialType);
		return [...new Set([...secretsOf(fresh), ...resolved.secrets])].sort(
			(a, b) => b.length - a.length,
		);
	} catch {
		return resolved.secrets;
	}
}
