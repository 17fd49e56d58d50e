/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a child process of tls.test.ts, not a node */
/**
 * Run by tls.test.ts in a child process started with NODE_EXTRA_CA_CERTS (the test CA), which
 * Node reads only at start-up: it is how an n8n administrator makes n8n trust a private CA, and
 * the nodes and credentials get no way to weaken certificate checks. Runs the ERP node (API key
 * and OAuth2), the credential test and the trigger's webhook registration through n8n-core's
 * engine against the HTTPS addresses it is given, and prints one JSON line with the outcomes and
 * the harness's secret-leak findings (outside jest the harness does not fail the file itself).
 */
import type { INodeCredentialTestResult } from 'n8n-workflow';

import { ErpApi } from '../../credentials/ErpApi.credentials';
import { DEMO_KEYS, DEMO_OAUTH_CLIENT } from '../../sandbox';
import {
	TestCredentials,
	activateTrigger,
	connectOAuth2,
	describeFinding,
	leakCounts,
	leakFindings,
	runWorkflow,
} from '../harness';
import type { LeakCounts, RunWorkflowResult } from '../harness';
import {
	CREDENTIAL_TEST_TYPE,
	credentialTestNode,
	credentialTestVerdict,
} from '../harness/credential-test';

/** What tls.test.ts hands over: the Base URL (ending in /v1) of each HTTPS server. */
export interface TlsJob {
	tls13: string;
	tls12: { node: string; oauth: string; credentialTest: string; trigger: string };
}

export interface Outcome {
	success: boolean;
	message?: string;
	description?: string;
	/** The transport's ERP facts (`context.erp.code`) when the error came from it. */
	code?: string | null;
	items?: number;
}

/** What the child prints: each call's outcome, and the harness's secret-leak check. */
export interface TlsResults {
	nodeTls12: Outcome;
	nodeTls13: Outcome;
	oauthTls12: Outcome;
	oauthTls13: Outcome;
	credentialTestTls12: INodeCredentialTestResult;
	credentialTestTls13: INodeCredentialTestResult;
	triggerTls12: Outcome;
	triggerTls13: Outcome;
	leaks: string[];
	scanned: LeakCounts;
}

const apiKey = (baseUrl: string) =>
	new TestCredentials({ erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl } });

function outcomeOf(run: RunWorkflowResult): Outcome {
	if (run.success) return { success: true, items: run.output('ERP').length };
	const error = run.error as
		| (Error & { description?: string; context?: { erp?: { code?: string | null } } })
		| undefined;
	return {
		success: false,
		message: error?.message,
		description: error?.description ?? undefined,
		code: error?.context?.erp?.code,
	};
}

const listArticles = async (credentials: TestCredentials, authentication = 'apiKey') =>
	outcomeOf(
		await runWorkflow({
			nodes: [
				{
					name: 'ERP',
					type: 'n8n-nodes-erp.erp',
					parameters: {
						authentication,
						resource: 'article',
						operation: 'getAll',
						returnAll: false,
						limit: 3,
					},
				},
			],
			credentials,
		}),
	);

const credentialType = new ErpApi();
const credentialTest = async (baseUrl: string) =>
	credentialTestVerdict(
		await runWorkflow({
			nodes: [{ name: 'Credential Test', type: CREDENTIAL_TEST_TYPE }],
			credentials: apiKey(baseUrl),
			extraNodeTypes: {
				[CREDENTIAL_TEST_TYPE]: credentialTestNode('erpApi', credentialType.test),
			},
		}),
		credentialType.test,
	);

async function registerWebhook(baseUrl: string, workflowId: string): Promise<Outcome> {
	try {
		const handle = await activateTrigger({
			parameters: { authentication: 'apiKey', events: ['vente.creee'] },
			credentials: apiKey(baseUrl),
			workflowId,
			webhookUrl: `https://n8n.example/webhook/${workflowId}/webhook`,
		});
		const registered = typeof handle.staticData.webhookId === 'string';
		await handle.deactivate();
		return { success: registered };
	} catch (error) {
		const e = error as Error & { description?: string; context?: { erp?: { code?: string } } };
		return {
			success: false,
			message: e.message,
			description: e.description,
			code: e.context?.erp?.code,
		};
	}
}

/** An OAuth2 credential connected through the TLS 1.3 server, then pointed at `baseUrl`. */
async function oauthCredentials(baseUrl: string, connectThrough: string): Promise<TestCredentials> {
	const credentials = new TestCredentials({
		erpOAuth2Api: {
			environment: 'sandbox',
			baseUrl: connectThrough,
			clientId: DEMO_OAUTH_CLIENT.clientId,
			clientSecret: DEMO_OAUTH_CLIENT.clientSecret,
		},
	});
	await connectOAuth2(credentials);
	credentials.set('erpOAuth2Api', { ...credentials.get('erpOAuth2Api'), baseUrl });
	return credentials;
}

async function main(): Promise<void> {
	const job = JSON.parse(process.env.TLS_JOB ?? '') as TlsJob;
	const result: TlsResults = {
		nodeTls12: await listArticles(apiKey(job.tls12.node)),
		nodeTls13: await listArticles(apiKey(job.tls13)),
		oauthTls12: await listArticles(await oauthCredentials(job.tls12.oauth, job.tls13), 'oAuth2'),
		oauthTls13: await listArticles(await oauthCredentials(job.tls13, job.tls13), 'oAuth2'),
		credentialTestTls12: await credentialTest(job.tls12.credentialTest),
		credentialTestTls13: await credentialTest(job.tls13),
		triggerTls12: await registerWebhook(job.tls12.trigger, 'tls-trigger-12'),
		triggerTls13: await registerWebhook(job.tls13, 'tls-trigger-13'),
		// Last: the check covers every call above.
		leaks: leakFindings().map(describeFinding),
		scanned: leakCounts(),
	};
	process.stdout.write(`TLS-RESULT ${JSON.stringify(result)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
		process.exit(1);
	},
);
