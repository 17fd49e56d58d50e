import { UserError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { credentialProblem, requestTargetProblem } from '../nodes/shared/guards';
import { withTlsMinimum } from '../nodes/shared/tls';
import {
	apiConventionProperties,
	rateLimitProperty,
	environmentProperty,
	baseUrlProperty,
	webhookSecretProperty,
} from '../nodes/shared/credentialFields';

export class ErpApi implements ICredentialType {
	name = 'erpApi';

	displayName = 'ERP API';

	icon: Icon = { light: 'file:../icons/erp.svg', dark: 'file:../icons/erp.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-erp/n8n-nodes-erp#credentials';

	properties: INodeProperties[] = [
		environmentProperty,
		baseUrlProperty,
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'sk_live_... or sk_test_...',
			description:
				'Created in the ERP under Settings > API > Keys and shown only once. Production keys start with sk_live_, sandbox keys with sk_test_; the key must match the Environment.',
		},
		webhookSecretProperty,
		rateLimitProperty,
		...apiConventionProperties,
	];

	// The function form runs before every request n8n sends with this credential: the credential
	// test, our nodes and the HTTP Request node. A refused credential never leaves n8n, and the key
	// only goes to the credential's own Base URL origin, over TLS 1.3 at least when it is https.
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const problem =
			credentialProblem(credentials, 'apiKey') ??
			requestTargetProblem(credentials.baseUrl, requestOptions);
		if (problem !== undefined) throw new UserError(problem);
		return withTlsMinimum({
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey).trim()}`,
			},
		});
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "") }}',
			url: '/articles',
			method: 'GET',
			qs: { limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The ERP refused the API key: it is invalid, expired, revoked, or for the other environment',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API key works but lacks the articles:read scope used to test it',
				},
			},
		],
	};
}
