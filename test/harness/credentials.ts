/**
 * TestCredentials: an in-memory credential store that is also n8n's credentials helper
 * (`additionalData.credentialsHelper`). It follows packages/cli/src/credentials-helper.ts:
 * defaults of the credential type (with `extends`) are applied, expressions in the data are
 * resolved (`$self`, `$credentials`...), `authenticate` is applied in its generic and function
 * forms, `preAuthentication` runs for expirable credentials, and the updates n8n-core persists
 * (OAuth2 token refresh, pre-authentication) are stored and recorded.
 */
import { Credentials, getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeTypes,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, UserError, Workflow, deepCopy, isExpression } from 'n8n-workflow';

import { registerCredentialSecrets } from './leaks';
import { getCredentialType, initRuntime } from './runtime';

export type CredentialData = ICredentialDataDecryptedObject;

/** The node-side reference to a stored credential (what a saved workflow holds). */
export function credentialRef(type: string): INodeCredentialsDetails {
	return { id: `harness-${type}`, name: `Test ${type}` };
}

const mockNode: INode = {
	id: 'harness-credential-mock',
	name: '',
	typeVersion: 1,
	type: 'mock',
	position: [0, 0],
	parameters: {},
};

/** Node types that know no node: enough for a Workflow used only to resolve expressions. */
const noNodeTypes = {
	getByName: () => undefined,
	getByNameAndVersion: () => undefined,
	getKnownTypes: () => ({}),
} as unknown as INodeTypes;

export class TestCredentials extends ICredentialsHelper {
	/** Every update n8n persisted, in order, with the full stored data after the update. */
	readonly updates: Array<{ type: string; data: CredentialData }> = [];

	private readonly stored = new Map<string, CredentialData>();

	private readonly types: Record<string, ICredentialType>;

	/**
	 * @param data stored credential data per credential type name (as a user saved it)
	 * @param options.types test-only credential types, by name (ours and oAuth2Api are built in)
	 */
	constructor(
		data: { [type: string]: CredentialData | undefined },
		options: { types?: Record<string, ICredentialType> } = {},
	) {
		super();
		initRuntime();
		this.types = options.types ?? {};
		for (const [type, value] of Object.entries(data)) {
			if (value !== undefined) this.store(type, value);
		}
	}

	/** Stores the data of `type` and registers its secrets with the leak check (leaks.ts). */
	private store(type: string, data: CredentialData): void {
		this.stored.set(type, deepCopy(data));
		let passwordFields: string[] = [];
		try {
			passwordFields = this.getCredentialsProperties(type)
				.filter((p) => p.typeOptions?.password === true)
				.map((p) => p.name);
		} catch {
			// An unknown type: its fields are judged by name only.
		}
		registerCredentialSecrets(type, data, passwordFields);
	}

	/** The current stored data of `type` (a copy), including updated `oauthTokenData`. */
	get(type: string): CredentialData {
		return deepCopy(this.storedData(type));
	}

	/** Replaces the stored data of `type` as a user editing the credential would (not recorded in `updates`). */
	set(type: string, data: CredentialData): void {
		this.store(type, data);
	}

	/** Whether data is stored for `type`. */
	has(type: string): boolean {
		return this.stored.has(type);
	}

	credentialType(name: string): ICredentialType {
		return getCredentialType(name, this.types);
	}

	private storedData(type: string): CredentialData {
		const data = this.stored.get(type);
		if (data === undefined) {
			throw new UserError(`No test credential of type "${type}" was given to TestCredentials`);
		}
		return data;
	}

	private record(type: string): void {
		this.updates.push({ type, data: this.get(type) });
	}

	/* --------------------------------------------- ICredentialsHelper (as n8n's CLI) */

	getParentTypes(name: string): string[] {
		const parents = this.credentialType(name).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		let typeDef: ICredentialType;
		try {
			typeDef = this.credentialType(credentialType);
		} catch {
			return true;
		}
		if (!typeDef.restrictToSupportedNodes) return true;
		const shortName = nodeType.split('.').pop() ?? nodeType;
		return (typeDef.supportedNodes ?? []).some((n) => n === nodeType || n === shortName);
	}

	async authenticate(
		credentials: CredentialData,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.credentialType(typeName);
		if (!authenticate) return requestOptions;

		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}

		if (!workflow || !node) {
			throw new UserError('Workflow and node are required for declarative credential authentication');
		}
		if (requestOptions.headers === undefined) requestOptions.headers = {};
		if (authenticate.type === 'generic') {
			const resolve = (value: string) =>
				this.resolveValue(value, { $credentials: credentials }, workflow, node);
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					if (!target[outerKey]) target[outerKey] = {};
					target[outerKey][resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions;
	}

	private resolveValue(
		value: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		return resolved ? String(resolved) : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: CredentialData,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<CredentialData | undefined> {
		const credentialType = this.credentialType(typeName);
		const expirableProperty = credentialType.properties.find(
			(property) => property.type === 'hidden' && property?.typeOptions?.expirable === true,
		);
		if (expirableProperty?.name === undefined) return undefined;
		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		if (credentials[expirableProperty.name] !== '' && !credentialsExpired) return undefined;

		const output = (await credentialType.preAuthentication.call(helpers, credentials)) as CredentialData;
		if (output[expirableProperty.name] === undefined) return undefined;

		const nodeCredentials = node.credentials?.[credentialType.name];
		if (nodeCredentials) {
			const storedData = this.get(credentialType.name);
			for (const [key, value] of Object.entries(output)) {
				if (key === expirableProperty.name || !isExpression(storedData[key])) storedData[key] = value;
			}
			await this.updateCredentials(nodeCredentials, credentialType.name, storedData);
			return Object.assign(credentials, output);
		}
		return undefined;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: CredentialData,
		typeName: string,
	): Promise<CredentialData | undefined> {
		const credentialType = this.credentialType(typeName);
		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		return ((await credentialType.preAuthentication.call(helpers, credentials)) as CredentialData) ?? undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const credentials = new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type);
		await credentials.setData(this.storedData(type));
		return credentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<CredentialData> {
		const original = this.get(type);
		if (raw === true) return original;
		return this.applyDefaults(additionalData, original, type, mode, executeData, expressionResolveValues);
	}

	/** Type defaults, then expressions resolved, as n8n's `applyDefaultsAndOverwrites` (no overwrites here). */
	applyDefaults(
		additionalData: IWorkflowExecuteAdditionalData,
		original: CredentialData,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): CredentialData {
		const properties = this.getCredentialsProperties(type);
		let data = NodeHelpers.getNodeParameters(
			properties,
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as CredentialData;
		if (original.oauthTokenData !== undefined) data.oauthTokenData = original.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				data = expressionResolveValues.workflow.expression.getParameterValue(
					data as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					data,
				) as CredentialData;
			} catch (e) {
				(e as Error).message += ' [Error resolving credentials]';
				// n8n's CLI rethrows the expression error as is, with this suffix.
				// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
				throw e;
			}
		} else {
			const workflow = new Workflow({
				nodes: [mockNode],
				connections: {},
				active: false,
				nodeTypes: noNodeTypes,
			});
			data = workflow.expression.getComplexParameterValue(
				mockNode,
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as CredentialData;
		}
		return data;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: CredentialData,
	): Promise<void> {
		this.store(type, data);
		this.record(type);
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: CredentialData,
	): Promise<void> {
		const stored = this.get(type);
		stored.oauthTokenData = deepCopy(data.oauthTokenData);
		this.store(type, stored);
		this.record(type);
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const typeData = this.credentialType(type);
		if (typeData.extends === undefined) {
			if (['oAuth1Api', 'oAuth2Api'].includes(type)) {
				return [
					...typeData.properties,
					{ displayName: 'oauthTokenData', name: 'oauthTokenData', type: 'json', required: false, default: {} },
				];
			}
			return typeData.properties;
		}
		const combined: INodeProperties[] = [];
		for (const parent of typeData.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, typeData.properties);
		return combined;
	}
}
