/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// What the catch-up test files share: a sandbox that delivers webhooks (one per file) and its
// credential, a published ERP Trigger that checks every minute, a low-stock crossing, and the
// deletion of a registration. `catchUpGround()` registers the file's Jest hooks (the clock is real
// again after each test).
import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, jest } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { SandboxHandle } from '../../sandbox';
import { DEMO_KEYS } from '../../sandbox';
import { TestCredentials } from '../harness';
import { api, startDeliveringSandbox } from './helpers';
import { newArticle, setStock } from './polling-helpers';
import { publishWithWebhook } from './published';
import type { PublishedWithWebhook } from './published';

/** expectCount's settings for runs that must stay as they are. */
export const QUIET = { deadlineMs: 5_000, quietMs: 300, pollMs: 20 };

export type Published = PublishedWithWebhook & { webhookId: string };

export interface CatchUpGround {
	readonly sandbox: SandboxHandle;
	readonly credentials: TestCredentials;
	/** A published trigger (checks every minute): the webhook side listening, then `trigger()`. */
	published(workflowId: string, events: string[], options?: IDataObject): Promise<Published>;
	/** A low-stock crossing: an article at 20 (alert at 10) brought to 5. Returns the article. */
	crossing(): Promise<IDataObject>;
	/** Deletes a registration in the ERP (as an ERP that gave up on it). */
	deleteRegistration(id: string): Promise<void>;
}

export function catchUpGround(): CatchUpGround {
	let sandbox: SandboxHandle | undefined;
	let credentials: TestCredentials | undefined;
	beforeAll(async () => {
		sandbox = await startDeliveringSandbox();
		credentials = new TestCredentials({
			erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
		});
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	afterEach(() => {
		jest.useRealTimers();
	});
	const ground: CatchUpGround = {
		get sandbox() {
			assert.ok(sandbox, 'the sandbox starts in beforeAll');
			return sandbox;
		},
		get credentials() {
			assert.ok(credentials, 'the credential is made in beforeAll');
			return credentials;
		},
		async published(workflowId, events, options = {}) {
			const parameters: INodeParameters = {
				authentication: 'apiKey',
				events,
				options: { checkMinutes: 1, ...options },
			};
			const p = await publishWithWebhook({
				workflowId,
				parameters,
				credentials: ground.credentials,
			});
			return { ...p, webhookId: String(p.hook.staticData.webhookId) };
		},
		async crossing() {
			const article = await newArticle(ground.sandbox, { stock: 20, seuil_alerte: 10 });
			await setStock(ground.sandbox, article.id, 5);
			return article;
		},
		async deleteRegistration(id) {
			assert.equal((await api(ground.sandbox, 'DELETE', `/webhooks/${id}`)).status, 204);
		},
	};
	return ground;
}
