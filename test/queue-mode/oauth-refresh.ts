/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * For `npm run test:queue` (shared.queue.ts, on the shared deployment, with its own sandbox): OAuth2
 * under load across processes. In queue mode (scripts/queue-mode.ts, 2 workers), 20 requests at once reach a production webhook whose workflow reads the payroll
 * slips with a PKCE-connected OAuth2 credential, just after its access token expired: the 20
 * executions are split over the two workers, each its own process, and each finds the token
 * expired. The sandbox rotates refresh tokens at each use and refuses a used one (invalid_grant),
 * as OAuth 2.1 servers do: two workers refreshing with the same refresh token would make one
 * execution fail. Every execution succeeds, no token request is refused, a later execution (after
 * the new access token expired too) works without reconnecting, and the number of token requests
 * is printed. The control replays a refresh token already used, as an uncoordinated second
 * refresh would: refused, and counted.
 */
import assert from 'node:assert/strict';

import { sandboxRequests, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { importCredentials } from '../../scripts/n8n-instance';
import { startedPerWorker } from '../../scripts/queue-mode';
import { expectRuns } from '../e2e/count';
import { chainWorkflow, erp } from '../e2e/helpers';
import { apiRequestNode, payrollCredential, tokenRequest } from '../e2e/oauth';
import type { Scenario } from './shared-deployment';

const MINUTE = 60_000;
const AT_ONCE = 20;
/** The sandbox's access tokens live this long: the burst waits it out. */
const ACCESS_TOKEN_SECONDS = 20;
const WORKFLOW = { id: 'ErpQueueOAuth001', path: 'erp-queue-oauth-slips' };

/** Webhook (GET, answers with every item), then ERP › API Request › the payroll slips, OAuth2. */
function slipsWorkflow() {
	return chainWorkflow(WORKFLOW.id, 'Queue OAuth2: read the payroll slips', [
		{
			name: 'Request',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			webhookId: '0b7d0c1e-5a3f-4e2b-9c8d-7f6e5d4c3b2a',
			parameters: {
				httpMethod: 'GET',
				path: WORKFLOW.path,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
		},
		apiRequestNode({
			path: '/paie/bulletins',
			queryParameters: { parameter: [{ name: 'periode', value: '2025-12' }] },
			returnAll: true,
		}),
	]);
}

/** The sandbox's answered token requests: granted and refused. */
async function tokenRequests(
	sandbox: SandboxHandle,
): Promise<{ granted: number; refused: number }> {
	const requests = (await sandboxRequests(sandbox.url)).filter(
		(r) => r.method === 'POST' && r.path === '/oauth/token',
	);
	const granted = requests.filter((r) => r.status === 200).length;
	return { granted, refused: requests.length - granted };
}

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

let refreshToken: string;
let tokenIssuedAt: number;

export const oauthRefresh: Scenario = {
	tag: 'queue oauth',
	sandbox: { rateLimit: UNPACED, tokenLifetimes: { accessTokenSeconds: ACCESS_TOKEN_SECONDS } },
	imports: () => ({ workflows: [slipsWorkflow()] }),
	async ready({ queue, sandbox, log }) {
		const credential = await payrollCredential(queue.mainConfig, sandbox);
		tokenIssuedAt = Date.now();
		refreshToken = String(
			(credential.data.oauthTokenData as { refresh_token: string }).refresh_token,
		);
		await importCredentials(queue.mainConfig, [credential], log);
		await queue.rest.activate(WORKFLOW.id);
	},
	tests: [
		{
			name: `queue mode, 2 workers: ${AT_ONCE} executions at once just after the OAuth2 access token expired all succeed; the grant survives`,
			timeoutMs: 15 * MINUTE,
			async run({ queue: q, sandbox, log }) {
				const url = `${q.webhookUrl}/webhook/${WORKFLOW.path}`;
				const expected = (await erp(sandbox, '/paie/bulletins?periode=2025-12&limit=100')).data;
				const before = await tokenRequests(sandbox);
				await pause(Math.max(0, tokenIssuedAt + (ACCESS_TOKEN_SECONDS + 2) * 1000 - Date.now()));
				const answers = await Promise.all(
					Array.from({ length: AT_ONCE }, async () => {
						const response = await fetch(url, { signal: AbortSignal.timeout(3 * MINUTE) });
						return { status: response.status, body: await response.text() };
					}),
				);
				const runs = await expectRuns(q.rest, WORKFLOW.id, AT_ONCE, { deadlineMs: 3 * MINUTE });
				const burst = await tokenRequests(sandbox);
				// Which worker ran these executions (each worker logs the executions it starts).
				const split = startedPerWorker(
					q,
					runs.map((r) => r.id),
				);
				process.stdout.write(
					`# ${AT_ONCE} executions at once after expiry: token requests ${burst.granted - before.granted} granted, ${burst.refused - before.refused} refused; executions per worker ${JSON.stringify(split)}\n`,
				);
				for (const failed of runs.filter((r) => r.status !== 'success')) {
					const errors = await q.rest.executionErrors(failed.id).catch((e: Error) => [e.message]);
					process.stdout.write(
						`# execution ${failed.id} (${failed.status}): ${errors.join(' | ')}\n`,
					);
				}
				assert.deepEqual(
					answers.filter((a) => a.status !== 200),
					[],
					'every request answered 200',
				);
				for (const answer of answers) assert.deepEqual(JSON.parse(answer.body), expected);
				assert.deepEqual(
					runs.filter((r) => r.status !== 'success'),
					[],
					'every execution succeeded',
				);
				assert.ok(
					split.every((n) => n > 0),
					`both workers ran executions: ${JSON.stringify(split)}`,
				);
				assert.equal(burst.refused - before.refused, 0, 'no token request refused');
				assert.ok(burst.granted - before.granted >= 1, 'the expired token was refreshed');

				log('a later execution, once the new access token expired too');
				await pause((ACCESS_TOKEN_SECONDS + 2) * 1000);
				const later = await fetch(url, { signal: AbortSignal.timeout(3 * MINUTE) });
				assert.equal(later.status, 200, await later.clone().text());
				assert.deepEqual(await later.json(), expected);
				const after = await tokenRequests(sandbox);
				assert.equal(after.refused, burst.refused, 'no token request refused');
				assert.equal(after.granted, burst.granted + 1, 'one more refresh, granted');
			},
		},
		{
			name: 'control: a refresh token already used (an uncoordinated second refresh) is refused and counted',
			timeoutMs: MINUTE,
			async run({ sandbox }) {
				const before = await tokenRequests(sandbox);
				const response = await tokenRequest(sandbox, {
					grant_type: 'refresh_token',
					refresh_token: refreshToken,
				});
				assert.equal(response.status, 400);
				assert.equal(((await response.json()) as { error: string }).error, 'invalid_grant');
				assert.equal((await tokenRequests(sandbox)).refused, before.refused + 1);
			},
		},
	],
};
