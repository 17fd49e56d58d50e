/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * End to end in real n8n 2.41.1 (issue 17): the packed tarball installed as a community package,
 * an ERP OAuth2 API credential holding a token with the scope paie:read (obtained through the
 * sandbox's real Authorization Code + PKCE flow, then imported with its `oauthTokenData` as n8n
 * stores it after "Connect my account"), and a workflow whose ERP › API Request node reads the
 * payroll slips, run as the editor runs it (n8nExecute).
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_OAUTH_CLIENT } from '../../sandbox';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, n8nExecute, skipE2e } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { e2eLog, erp, MINUTE, startE2e, type E2e } from './helpers';
import { apiRequestWorkflow, payrollCredential } from './oauth';

const SKIP = skipE2e();

const log = e2eLog('e2e api-request');

const WORKFLOW_IDS = { slips: 'ErpE2ePayroll001', journal: 'ErpE2eAuditJrnl1' };

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: ERP › API Request with an OAuth2 credential`,
	() => {
		let e2e: E2e;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-api-',
				shared: true,
				log,
				files,
				workflows: () => [
					apiRequestWorkflow(WORKFLOW_IDS.slips, 'E2E: read the payroll slips', {
						path: '/paie/bulletins',
						queryParameters: { parameter: [{ name: 'periode', value: '2025-12' }] },
						returnAll: true,
					}),
					apiRequestWorkflow(WORKFLOW_IDS.journal, 'E2E: read the audit journal', {
						path: '/audit/journal',
					}),
				],
				credentials: async ({ config, sandbox }) => [await payrollCredential(config, sandbox)],
			});
		}, 55 * MINUTE);

		afterAll(async () => {
			await e2e?.stop('setup');
		}, 60 * MINUTE);

		it(
			'reads exactly the payroll slips of the period, with the OAuth2 token',
			track(async () => {
				const run = await n8nExecute(e2e.config, WORKFLOW_IDS.slips, log);
				const items = run.data.resultData.runData['ERP API Request'][0].data.main[0].map(
					(item: { json: unknown }) => item.json,
				);
				const expected = (await erp(e2e.sandbox, '/paie/bulletins?periode=2025-12&limit=100')).data;
				assert.equal(expected.length, 8);
				assert.deepEqual(items, expected);

				// The sandbox's audit journal: the read was made with the OAuth2 grant, not a key.
				const reads = await expectCount(
					'OAuth2 reads of /v1/paie/bulletins in the journal',
					1,
					async () => {
						const journal = (await erp(e2e.sandbox, '/audit/journal?limit=100')).data.filter(
							(entry: { endpoint: string; acteur_type: string }) =>
								entry.endpoint === '/v1/paie/bulletins' && entry.acteur_type === 'oauth',
						);
						return { count: journal.length, detail: journal };
					},
				);
				assert.deepEqual(
					reads!.map((entry: { acteur: string; statut_http: number }) => [
						entry.acteur,
						entry.statut_http,
					]),
					[[DEMO_OAUTH_CLIENT.clientId, 200]],
				);
			}),
			60 * MINUTE,
		);

		it(
			'control: the same credential reading the audit journal fails with the 403 naming audit:read',
			track(async () => {
				await assert.rejects(
					n8nExecute(e2e.config, WORKFLOW_IDS.journal, log),
					/The credential lacks the permission for this request: it needs the scope audit:read/,
				);
			}),
			60 * MINUTE,
		);
	},
);
