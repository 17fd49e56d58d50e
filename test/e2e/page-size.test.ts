/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The tolerant page size in real n8n 2.41.1 (issue 18): the packed package installed as a
 * community package, the sandbox as a server that allows 50 items per page (it answers
 * `400 limit must be between 1 and 50` to `limit=100`), and a published workflow (Webhook, then
 * ERP › Article › Get Many with Return All) called on its production URL. What the page-size
 * memory promises depends on n8n keeping the node's module loaded between executions:
 * - the first execution is refused once, then reads pages of 50;
 * - the next execution in the same n8n process starts at 50: no refused request;
 * - control (the counter can fail): after an n8n restart, the first execution is refused once
 *   again (the memory is the process's, as the README says).
 * Every execution returns every article exactly once.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { sandboxRequests, UNPACED } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { pages } from '../transport/helpers';
import { expectCount, stableCount } from './count';
import { e2eLog, erp, listAllWorkflow, MINUTE, startE2e, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('page-size');

const WORKFLOW_ID = 'ErpE2ePageSize01';
const WEBHOOK_PATH = 'erp-e2e-page-size';

(SKIP ? describe.skip : describe)(
	`real n8n ${N8N_VERSION}: a server that allows 50 items per page`,
	() => {
		let e2e: E2e;
		let total: number;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-page-',
				log,
				files,
				sandbox: { maxPageSize: 50, rateLimit: UNPACED },
				workflows: () => [
					listAllWorkflow(WORKFLOW_ID, 'E2E: list every article', {
						webhookId: 'a3d6f0c2-5b1e-4f7a-9c44-2e8b6d1f0a55',
						path: WEBHOOK_PATH,
						credential: SANDBOX_CREDENTIAL,
					}),
				],
			});
			await e2e.rest.activate(WORKFLOW_ID);
			total = (await erp(e2e.sandbox, '/articles?limit=1')).pagination.total;
			assert.ok(total > 50, `the seed needs more than one page of 50 (has ${total})`);
		}, 55 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
		}, 10 * MINUTE);

		/**
		 * One execution through the production webhook: `limit:status` of each list request it
		 * sent, once `expected` of them are logged and no other comes in the quiet period (with no
		 * number expected: once the log has stopped growing).
		 */
		async function listOnce(expected?: number): Promise<string[]> {
			const before = (await sandboxRequests(e2e.sandbox.url)).length;
			const response = await fetch(`${e2e.n8n!.url}/webhook/${WEBHOOK_PATH}`, {
				signal: AbortSignal.timeout(120_000),
			});
			const text = await response.text();
			assert.equal(response.status, 200, text);
			const ids = (JSON.parse(text) as Array<{ id: string }>).map((article) => article.id);
			assert.equal(ids.length, total, 'every article is returned');
			assert.equal(new Set(ids).size, total, 'no article is returned twice');
			const read = async () => {
				const listed = pages((await sandboxRequests(e2e.sandbox.url)).slice(before));
				return { count: listed.length, detail: listed };
			};
			const what = 'list requests of the execution';
			const sent =
				expected === undefined
					? (await stableCount(what, read)).detail
					: await expectCount(what, expected, read);
			return sent ?? [];
		}

		const pagesOf50 = () => Array<string>(Math.ceil(total / 50)).fill('50:200');

		it(
			'the first execution is refused once at limit=100, then reads pages of 50',
			track(async () => {
				const expected = ['100:400', ...pagesOf50()];
				assert.deepEqual(await listOnce(expected.length), expected);
			}),
			10 * MINUTE,
		);

		it(
			'the next execution in the same n8n process starts at 50: no request is refused',
			track(async () => {
				// An execution of its own first (refused once or not: whatever ran before), then the next.
				assert.deepEqual((await listOnce()).slice(-pagesOf50().length), pagesOf50());
				assert.deepEqual(await listOnce(pagesOf50().length), pagesOf50());
			}),
			10 * MINUTE,
		);

		it(
			'control: after an n8n restart the memory is gone, and the first execution is refused once again',
			track(async () => {
				log('restarting n8n');
				await e2e.n8n!.stop();
				await e2e.start();
				const expected = ['100:400', ...pagesOf50()];
				assert.deepEqual(await listOnce(expected.length), expected);
			}),
			10 * MINUTE,
		);
	},
);
