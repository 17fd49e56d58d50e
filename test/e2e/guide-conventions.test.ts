/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * docs/connecting.md, "Try it against the sandbox", steps 4 to 7 in real n8n (issue 40), through
 * n8n's REST API as the editor does: a copy of the low-stock example on the credential of step 4
 * (the list settings), against the sandbox of step 5 (step 1's lists, HMAC signatures):
 * - publishing the copy works (its trigger reads the ERP's webhook registrations with the
 *   credential's list settings); a delivery is refused with 401;
 * - with the signature settings added to the credential, published again, a delivery starts a
 *   run whose chat message names the article (the sandbox's test event carries its fields).
 * Control: against the sandbox the guide used to start in step 5 (lists in the contract's
 * names), publishing fails with "not a list", as a newcomer saw it.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { UNPACED } from '../../sandbox';
import type { SandboxConventions } from '../../sandbox';
import {
	EXAMPLE_IDS,
	loadExample,
	startChatSink,
	wireExample,
	type ChatSink,
	type Workflow,
} from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { e2eLog, MINUTE, type Sandbox, sandboxCredential, startE2e, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e guide');

/** Step 1's lists. */
const LISTS = {
	cursorParam: 'starting_after',
	pageSizeParam: 'per_page',
	itemsPath: 'items',
	nextCursorPath: 'meta.next',
};
/** Step 5's sandbox: step 1's lists, and HMAC signatures with `{event, payload}`. */
const STEP5: Partial<SandboxConventions> = {
	...LISTS,
	signature: 'hmac-hex',
	signatureHeader: 'X-Hub-Signature-256',
	signaturePrefix: 'sha256=',
	eventTypePath: 'event',
	eventDataPath: 'payload',
};
/** Step 4's credential: the list settings. */
const VARIANT = { id: 'ErpGuideVariant1', name: 'ERP sandbox, variant on 4020' };
const COPY_ID = 'ErpGuideLowStock';

(SKIP ? describe.skip : describe)(
	`docs/connecting.md steps 4 to 7 in real n8n ${N8N_VERSION}`,
	() => {
		let e2e: E2e;
		let chat: ChatSink;
		const files = keepFilesOnFailure(log);
		const track = files.track;

		/** The credential of step 4, with `more` (step 7's signature settings). */
		const credential = (sandbox: Sandbox, more: Record<string, unknown> = {}) =>
			sandboxCredential(VARIANT, sandbox, { customConventions: true, ...LISTS, ...more });

		/** The sandbox sends a stock.bas for this article (`POST /_sandbox/events`, as in step 6). */
		const event = async (articleId: string) => {
			const response = await fetch(`${e2e.sandbox.url}/_sandbox/events`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ type: 'stock.bas', data: { article_id: articleId } }),
			});
			assert.equal(response.status, 200);
		};
		const deliveries = async (status: number) => {
			const response = await fetch(`${e2e.sandbox.url}/_sandbox/deliveries`);
			const { data } = (await response.json()) as { data: Array<{ status: number }> };
			return { count: data.filter((d) => d.status === status).length, detail: data };
		};

		beforeAll(async () => {
			chat = await startChatSink();
			e2e = await startE2e({
				folderPrefix: 'n8n-nodes-erp-e2e-guide-',
				shared: true,
				log,
				files,
				sandbox: {
					rateLimit: UNPACED,
					conventions: STEP5,
					webhookRetry: { baseMs: 200, maxAttempts: 1, timeoutMs: 10_000 },
				},
				workflows: (): Workflow[] => {
					// Step 7: the low-stock example, duplicated, on the credential of step 4.
					const copy = wireExample(loadExample(EXAMPLE_IDS.lowStockToChat), {
						chatUrl: chat.url,
					});
					const text = JSON.stringify(copy)
						.split('ErpSandboxDemo01')
						.join(VARIANT.id)
						.split('ERP sandbox (demo key)')
						.join(VARIANT.name)
						.split('2c9a4f0e-5d7b-4e1a-8f63-b1d2e3f4a5b1')
						.join('2c9a4f0e-5d7b-4e1a-8f63-b1d2e3f4a5c7');
					return [{ ...(JSON.parse(text) as Workflow), id: COPY_ID, name: 'Low stock copy' }];
				},
				credentials: async ({ sandbox }) => [credential(sandbox)],
			});
		}, 55 * MINUTE);

		afterAll(async () => {
			await e2e?.stop();
			await chat?.close();
		}, 10 * MINUTE);

		it(
			'step 7: the copy publishes, refuses the HMAC delivery (401), then runs once with the signature settings',
			track(async () => {
				await e2e.rest.activate(COPY_ID);
				await event('art_00000002');
				await expectCount('deliveries answered 401', 1, async () => await deliveries(401));

				await e2e.setCredential(
					credential(e2e.sandbox, {
						signatureScheme: 'bodyHmac',
						signatureHeader: 'X-Hub-Signature-256',
						signatureAlgorithm: 'sha256',
						signatureEncoding: 'hex',
						signaturePrefix: 'sha256=',
						eventTypePath: 'event',
						eventDataPath: 'payload',
					}),
				);
				await e2e.rest.deactivate(COPY_ID);
				await e2e.rest.activate(COPY_ID);
				await event('art_00000001');
				await expectCount('deliveries answered 200', 1, async () => await deliveries(200));
				const messages = await expectCount('chat messages about REF-000001', 1, async () => {
					const about = chat.messages.filter((m) => m.includes('(REF-000001)'));
					return { count: about.length, detail: about };
				});
				log(`chat: ${JSON.stringify(messages)}`);
				assert.match(
					chat.messages.find((m) => m.includes('(REF-000001)'))!,
					/Low stock: \S.* \(REF-000001\) is down to \d+, alert threshold \d+\./,
				);
			}),
			20 * MINUTE,
		);

		it(
			'control: against the guide\'s former step-5 sandbox (lists in the contract\'s names) publishing fails with "not a list"',
			track(async () => {
				await e2e.rest.deactivate(COPY_ID);
				const response = await fetch(`${e2e.sandbox.url}/_sandbox/config`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({
						conventions: {
							cursorParam: 'cursor',
							pageSizeParam: 'limit',
							itemsPath: 'data',
							nextCursorPath: 'pagination.next_cursor',
						},
					}),
				});
				assert.equal(response.status, 200);
				await assert.rejects(e2e.rest.activate(COPY_ID), /not a list/);
			}),
			20 * MINUTE,
		);
	},
);
