/**
 * n8n's credentials tester (packages/cli, CredentialsTester.testCredentials in n8n 2.41.1), the
 * part that runs a credential type's `test` request: it builds a node whose one property routes
 * the request, runs it, and turns the outcome into `{ status, message }`, applying the type's
 * `rules` (`responseCode` on an error answer, `responseSuccessBody` on a success). The n8n CLI
 * package is not a dependency (see README.md); this copies its decision logic line for line.
 */
import type { ICredentialTestRequest, INodeCredentialTestResult, INodeType } from 'n8n-workflow';

import { testNodeDescription } from './fixtures';
import type { RunWorkflowResult } from './run-workflow';

export const CREDENTIAL_TEST_TYPE = 'test.credentialTest';

/** What n8n's credentials tester builds: a node whose one property routes the type's test request. */
export function credentialTestNode(
	credentialType: string,
	test: ICredentialTestRequest,
): INodeType {
	return {
		description: testNodeDescription('credentialTest', 'Credential Test', {
			description: 'Runs the credential test request',
			credentials: [{ name: credentialType, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: test.request },
				},
			],
		}),
	};
}

const get = (value: unknown, key: string): unknown =>
	key
		.split('.')
		.reduce<unknown>(
			(v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
			value,
		);

/** The verdict n8n shows for a credential test run (`run`: the Credential Test node's workflow). */
export function credentialTestVerdict(
	run: RunWorkflowResult,
	test: ICredentialTestRequest,
): INodeCredentialTestResult {
	if (!run.success) {
		const error = run.error as
			| (Error & {
					httpCode?: string | null;
					cause?: { response?: { status?: number; statusText?: string }; code?: string };
			  })
			| undefined;
		// n8n reads the status from the thrown NodeApiError's `cause` (the HTTP client's error);
		// the execution's error that the harness hands back no longer carries `cause`, but the same
		// NodeApiError kept the status as `httpCode`.
		const response =
			error?.cause?.response ??
			(error?.httpCode ? { status: Number(error.httpCode), statusText: '' } : undefined);
		if (error && response) {
			const statusCode = Number(response.status);
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && statusCode === rule.properties.value)
					return { status: 'Error', message: rule.properties.message };
			}
			if (statusCode < 199 || statusCode > 299)
				return {
					status: 'Error',
					message: response.statusText || `Received HTTP status code: ${statusCode}`,
				};
		} else if (error?.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error?.message) };
	}
	const json = run.output('Credential Test')[0];
	for (const rule of test.rules ?? []) {
		if (
			rule.type === 'responseSuccessBody' &&
			get(json, rule.properties.key) === rule.properties.value
		)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
