/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * Settings › On Error in real n8n (issue 40), run as the editor runs it (n8nExecute) (./on-error.ts, shared with
 * test/compat/on-error.compat.ts), then the order example published:
 * - Continue (using error output): ERP › Article › Get by reference over four items (two known
 *   references, an unknown one, an empty one): the two failures on the error output, with the
 *   input item's fields and `error` (the message and the ERP's facts); the two articles on the
 *   success output. Control: n8n's own HTTP Request node, over the same four items, routes 2 and 2.
 * - Continue (regular output): the four on the success output, the failures with `error`,
 *   `code` and `httpCode`.
 * - Stop Workflow: the execution fails, naming the item.
 * - Pairing: on each output, a Set node's `$('Items').item` is the item's own input item.
 * - The order example: a bad order (422) and the ERP busy (503) each end in a failed
 *   execution naming the order; control: a good order's execution succeeds.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { EXAMPLE_IDS, SANDBOX_DEMO_KEY, loadExample } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectRuns } from './count';
import { e2eLog, MINUTE, ownCopy, startE2e, type E2e } from './helpers';
import { checkRouting, checkStop, onErrorWorkflows } from './on-error';

const SKIP = skipE2e();
const log = e2eLog('e2e on-error');

const IDS = { routing: 'ErpE2eOnError001', stop: 'ErpE2eOnError002' };
const example = ownCopy(loadExample(EXAMPLE_IDS.orderToInvoice), 'ErpE2eOnErrOrder');

(SKIP ? describe.skip : describe)(
	`On Error and failed executions in real n8n ${N8N_VERSION}`,
	() => {
		let e2e: E2e;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		beforeAll(async () => {
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-on-error-',
				shared: true,
				log,
				files,
				workflows: (sandbox) => [...onErrorWorkflows(IDS, sandbox.baseUrl), example],
			});
		}, 75 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
		}, 80 * MINUTE);

		it(
			'each On Error setting routes the failed items as n8n’s own nodes do, each item paired with its input',
			track(async () => await checkRouting(e2e.config, IDS.routing, log)),
			20 * MINUTE,
		);

		it(
			'Stop Workflow: the execution fails, naming the item (the empty reference: every item is checked before any is sent)',
			track(async () => await checkStop(e2e.config, IDS.stop, log)),
			20 * MINUTE,
		);

		it(
			'the order example: after answering 422 or 503 the execution fails, naming the order (control: a good order succeeds)',
			track(async () => {
				await e2e.rest.activate(example.id);
				const path = String(
					example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path,
				);
				const send = async (number: string, email: string) => {
					const response = await fetch(`${e2e.n8n!.url}/webhook/${path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({
							order_number: number,
							financial_status: 'pending',
							customer: { email, name: 'On Error' },
							line_items: [{ sku: 'MUG-BLUE', quantity: 1 }],
						}),
						signal: AbortSignal.timeout(3 * MINUTE),
					});
					log(
						`order ${number} answered ${response.status}: ${(await response.text()).slice(0, 200)}`,
					);
					return response.status;
				};
				assert.equal(await send('E2E-40-GOOD', 'good@on-error.test'), 200);
				assert.equal(await send('E2E-40-BAD', 'not-an-email'), 422);
				const config = async (body: unknown) =>
					await fetch(`${e2e.sandbox.url}/_sandbox/config`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify(body),
					});
				await config({ rateLimit: { limit: 1, windowSeconds: 3600 } });
				await fetch(`${e2e.sandbox.baseUrl}/articles?limit=1`, {
					headers: { Authorization: `Bearer ${SANDBOX_DEMO_KEY}` },
				}); // the hour's one request
				try {
					assert.equal(await send('E2E-40-BUSY', 'busy@on-error.test'), 503);
				} finally {
					await config({ rateLimit: { limit: 100, windowSeconds: 60 } });
				}

				const runs = await expectRuns(e2e.rest, example.id, 3);
				const outcome: Record<string, string> = {};
				for (const { id, status } of runs) {
					const errors = await e2e.rest.executionErrors(id);
					const number = /Order (E2E-40-\w+)/.exec(errors.join(' '))?.[1] ?? 'no order named';
					outcome[status === 'success' ? 'success' : number] = `${status}: ${errors.join(' | ')}`;
				}
				log(JSON.stringify(outcome));
				assert.deepEqual(Object.keys(outcome).sort(), ['E2E-40-BAD', 'E2E-40-BUSY', 'success']);
				assert.match(
					outcome['E2E-40-BAD'],
					/^error: .*Order E2E-40-BAD refused \(the shop was answered 422\): Invalid value for "Email"/,
				);
				assert.match(
					outcome['E2E-40-BUSY'],
					/^error: .*Order E2E-40-BUSY not invoiced \(the shop was answered 503/,
				);
			}),
			30 * MINUTE,
		);
	},
);
