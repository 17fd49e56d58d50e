/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * The process-wide setup n8n-core needs (dependency injection, instance settings, logger) and
 * the registries of node and credential types. Everything else in the harness builds on this.
 *
 * n8n-core resolves its own copies of `@n8n/di` and `@n8n/backend-common` (nested under
 * node_modules/n8n-core), so the harness loads them from n8n-core's location: a Container
 * taken from elsewhere would be a different registry.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { InstanceSettings } from 'n8n-core';
import type {
	ICredentialType,
	IDataObject,
	INodeProperties,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { LoggerProxy, NodeHelpers, UnexpectedError } from 'n8n-workflow';

import { registerFileLeakCheck, scanLog } from './leaks';

export const ROOT = path.resolve(__dirname, '..', '..');

const coreRequire = createRequire(require.resolve('n8n-core'));
const { Container } = coreRequire('@n8n/di') as typeof import('@n8n/di');
const { Logger } = coreRequire('@n8n/backend-common') as { Logger: abstract new () => object };
const coreLoggerProxy = (coreRequire('n8n-workflow') as typeof import('n8n-workflow')).LoggerProxy;

// Every test file that imports the harness gets the file-level secret-leak check (see leaks.ts).
registerFileLeakCheck();

let initialized = false;

/** Wraps console's printing methods so that every line printed is also scanned for secrets. */
function captureConsole(): void {
	for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
		// eslint-disable-next-line no-console -- capturing console is the point
		const original = console[level].bind(console);
		// eslint-disable-next-line no-console -- capturing console is the point
		console[level] = (...args: unknown[]) => {
			scanLog(`console.${level}`, args);
			original(...args);
		};
	}
}

/**
 * Registers what n8n-core takes from its DI container during an execution: a silent logger
 * (each line is scanned for secrets, then dropped; n8n-workflow's LoggerProxy goes to it too)
 * and instance settings whose folder is a private temporary directory (n8n writes its
 * settings file there; it is removed when the process exits). No environment variable is set.
 */
export function initRuntime(): void {
	if (initialized) return;
	initialized = true;

	const line = (level: string) => (message: unknown, meta?: unknown) => {
		scanLog(`logger.${level}`, message, meta);
	};
	const silentLogger = {
		error: line('error'),
		warn: line('warn'),
		info: line('info'),
		debug: line('debug'),
		scoped() {
			return silentLogger;
		},
	};
	Container.set(Logger, silentLogger);
	LoggerProxy.init(silentLogger as unknown as Parameters<typeof LoggerProxy.init>[0]);
	if (coreLoggerProxy !== LoggerProxy) {
		coreLoggerProxy.init(silentLogger as unknown as Parameters<typeof LoggerProxy.init>[0]);
	}
	captureConsole();

	const folder = mkdtempSync(path.join(tmpdir(), 'n8n-harness-'));
	process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
	const instanceSettingsConfig = {
		n8nFolder: folder,
		userHome: folder,
		encryptionKey: randomBytes(24).toString('base64'),
		enforceSettingsFilePermissions: false,
	};
	const settings = new (InstanceSettings as unknown as new (
		config: object,
		logger: object,
	) => InstanceSettings)(instanceSettingsConfig, silentLogger);
	Container.set(InstanceSettings, settings);
}

/* ------------------------------------------------------------------ node types */

/** Our node types, by full type name: file (relative to the repository) and exported class. */
const OUR_NODE_TYPES: Record<string, { file: string; className: string }> = {
	'n8n-nodes-erp.erp': { file: 'nodes/Erp/Erp.node.ts', className: 'Erp' },
	'n8n-nodes-erp.erpTrigger': {
		file: 'nodes/ErpTrigger/ErpTrigger.node.ts',
		className: 'ErpTrigger',
	},
	'n8n-nodes-erp.erpPollingTrigger': {
		file: 'nodes/ErpPollingTrigger/ErpPollingTrigger.node.ts',
		className: 'ErpPollingTrigger',
	},
};

const loadedNodeTypes = new Map<string, INodeType | IVersionedNodeType>();

function loadClass<T>(file: string, className: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require(path.join(ROOT, file)) as Record<string, new () => T>;
	const cls = mod[className];
	if (typeof cls !== 'function') {
		throw new UnexpectedError(`${file} does not export a class named ${className}`);
	}
	return new cls();
}

/** Loads one of our node types from its TypeScript source (through tsx). Lazy and cached. */
export function loadNodeType(type: string): INodeType {
	const found = loadAnyNodeType(type);
	return NodeHelpers.getVersionedNodeType(found);
}

function loadAnyNodeType(type: string): INodeType | IVersionedNodeType {
	const cached = loadedNodeTypes.get(type);
	if (cached) return cached;
	const entry = OUR_NODE_TYPES[type];
	if (!entry) throw new UnexpectedError(`Unknown node type "${type}"`);
	const nodeType = loadClass<INodeType | IVersionedNodeType>(entry.file, entry.className);
	loadedNodeTypes.set(type, nodeType);
	return nodeType;
}

/** n8n's INodeTypes over the given node types, falling back to ours (loaded on demand). */
export class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly extra: Record<string, INodeType | IVersionedNodeType> = {}) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return this.extra[nodeType] ?? loadAnyNodeType(nodeType);
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/* ------------------------------------------------------------ credential types */

/* eslint-disable @n8n/community-nodes/credential-documentation-url, @n8n/community-nodes/credential-password-field -- n8n's own oAuth2Api, copied as it is */
/**
 * n8n's generic `oAuth2Api` credential type, field for field as in n8n-nodes-base 2.41.1
 * (dist/credentials/OAuth2Api.credentials.js), so that `extends: ['oAuth2Api']` resolves and
 * merges as in n8n. n8n-nodes-base itself is not a devDependency (see README.md: 88 runtime
 * dependencies, native ones among them, and isolated-vm needs Node 24).
 */
export class OAuth2Api implements ICredentialType {
	name = 'oAuth2Api';

	displayName = 'OAuth2 API';

	documentationUrl = 'httprequest';

	genericAuth = true;

	properties: INodeProperties[] = [
		{
			displayName: 'Use Dynamic Client Registration',
			name: 'useDynamicClientRegistration',
			type: 'hidden',
			default: false,
		},
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'options',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
			options: [
				{ name: 'Authorization Code', value: 'authorizationCode' },
				{ name: 'Client Credentials', value: 'clientCredentials' },
				{ name: 'PKCE', value: 'pkce' },
			],
			default: 'authorizationCode',
		},
		{
			displayName: 'Server URL',
			name: 'serverUrl',
			type: 'string',
			displayOptions: { show: { useDynamicClientRegistration: [true] } },
			default: '',
			required: true,
		},
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'string',
			displayOptions: {
				show: { grantType: ['authorizationCode', 'pkce'], useDynamicClientRegistration: [false] },
			},
			default: '',
			required: true,
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'string',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
			default: '',
			required: true,
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
			default: '',
			required: true,
		},
		{
			displayName: 'Authentication',
			name: 'clientCredentialType',
			type: 'hidden',
			default: 'clientSecret',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{ displayName: 'Private Key', name: 'privateKey', type: 'hidden', default: '' },
		{ displayName: 'Certificate', name: 'certificate', type: 'hidden', default: '' },
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
			default: '',
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'string',
			displayOptions: {
				show: { grantType: ['authorizationCode', 'pkce'], useDynamicClientRegistration: [false] },
			},
			default: '',
			description:
				'For some services additional query parameters have to be set which can be defined here',
			placeholder: 'access_type=offline',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			displayOptions: { show: { useDynamicClientRegistration: [false] } },
			options: [
				{ name: 'Body', value: 'body', description: 'Send credentials in body' },
				{ name: 'Header', value: 'header', description: 'Send credentials as Basic Auth header' },
			],
			default: 'header',
		},
		{
			displayName: 'Send Additional Body Properties',
			name: 'sendAdditionalBodyProperties',
			type: 'boolean',
			default: false,
			displayOptions: {
				show: {
					grantType: ['clientCredentials'],
					authentication: ['body'],
					useDynamicClientRegistration: [false],
				},
			},
		},
		{
			displayName: 'Additional Body Properties',
			name: 'additionalBodyProperties',
			type: 'json',
			typeOptions: { rows: 5 },
			displayOptions: {
				show: {
					grantType: ['clientCredentials'],
					authentication: ['body'],
					sendAdditionalBodyProperties: [true],
					useDynamicClientRegistration: [false],
				},
			},
			default: '',
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'ignoreSSLIssues',
			type: 'boolean',
			default: false,
			doNotInherit: true,
		},
		{
			displayName: 'Token Expired Status Code',
			name: 'tokenExpiredStatusCode',
			type: 'number',
			default: 401,
			description:
				'HTTP status code that indicates the token has expired. Some APIs return 403 instead of 401.',
			doNotInherit: true,
		},
		{
			displayName: 'Encrypted Tokens (JWE)',
			name: 'jweEnabled',
			envFeatureFlag: 'OAUTH2_JWE',
			type: 'boolean',
			default: false,
			description:
				'Whether the IdP returns tokens encrypted as JWE to the public key at this instance’s JWKS endpoint. The response must contain at least one JWE-encrypted token (access or ID token); fully plaintext responses are rejected.',
			doNotInherit: true,
		},
		{
			displayName: 'JWKS URI',
			name: 'jwksUri',
			type: 'string',
			typeOptions: { copyButton: true },
			default: '',
			description:
				'Provide this URL to your IdP so it can fetch the public key used to encrypt access and ID tokens for this instance.',
			displayOptions: { show: { jweEnabled: [true] } },
			doNotInherit: true,
		},
		{
			displayName: 'Inline JWKS in Client Registration',
			name: 'inlineJwks',
			type: 'boolean',
			default: false,
			description:
				'Whether to send the public keys directly in the dynamic client registration payload instead of advertising a JWKS URI. Enable this when the IdP cannot reach this instance (e.g. when self-hosted behind a firewall).',
			displayOptions: { show: { jweEnabled: [true], useDynamicClientRegistration: [true] } },
			doNotInherit: true,
		},
	];
}

/* eslint-enable @n8n/community-nodes/credential-documentation-url, @n8n/community-nodes/credential-password-field */

/** Our credential types, by name: file and exported class. Loaded only when used. */
const OUR_CREDENTIAL_TYPES: Record<string, { file: string; className: string }> = {
	erpApi: { file: 'credentials/ErpApi.credentials.ts', className: 'ErpApi' },
	erpOAuth2Api: { file: 'credentials/ErpOAuth2Api.credentials.ts', className: 'ErpOAuth2Api' },
};

const loadedCredentialTypes = new Map<string, ICredentialType>([['oAuth2Api', new OAuth2Api()]]);

/** The credential type `name`: from `extra`, n8n's oAuth2Api, or ours (loaded on demand). */
export function getCredentialType(
	name: string,
	extra: Record<string, ICredentialType> = {},
): ICredentialType {
	if (extra[name]) return extra[name];
	const cached = loadedCredentialTypes.get(name);
	if (cached) return cached;
	const entry = OUR_CREDENTIAL_TYPES[name];
	if (!entry) throw new UnexpectedError(`Unknown credential type "${name}"`);
	const type = loadClass<ICredentialType>(entry.file, entry.className);
	loadedCredentialTypes.set(name, type);
	return type;
}
