/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The ERP Polling Trigger's "Fetch Test Event" (issue 40) when there is nothing to show: an error
// that says so and why, instead of an empty result. Controls: the same fetch shows the item once
// there is one.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { DEMO_KEYS, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials } from '../harness';
import { newArticle, poller, setStock } from './polling-helpers';

let sandbox: SandboxHandle;
let credentials: TestCredentials;

beforeAll(async () => {
	// An ERP with no article at all (and so no stock movement).
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED, articles: 0 });
	credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
});

afterAll(async () => {
	await sandbox?.close();
});

const refusal = (error: unknown) => {
	const { message, description } = error as { message: string; description?: string };
	return `${message} | ${description}`;
};

describe('Fetch Test Event with nothing to show', () => {
	it('an empty list: says the list is empty (control: then shows the first article)', async () => {
		const trigger = await poller(credentials, { watch: 'article' });
		const error = await trigger.fetchTestEvent().then(
			() => assert.fail('Fetch Test Event should say there is nothing to show'),
			(e: unknown) => e,
		);
		assert.match(
			refusal(error),
			/^No New Article item to show yet \| The ERP's list \/articles is empty\./,
		);
		const article = await newArticle(sandbox);
		const [shown] = await trigger.fetchTestEvent();
		assert.equal((shown.data as { id: string }).id, article.id);
	});

	it('records but no item of the watch: says so (control: then shows the crossing)', async () => {
		const trigger = await poller(credentials, { watch: 'lowStock' });
		const article = await newArticle(sandbox, { stock: 20, seuil_alerte: 10 });
		await setStock(sandbox, article.id, 15); // a movement, no crossing
		const error = await trigger.fetchTestEvent().then(
			() => assert.fail('Fetch Test Event should say there is nothing to show'),
			(e: unknown) => e,
		);
		assert.match(refusal(error), /^No Low Stock item to show yet \| None of the \d+ records/);
		await setStock(sandbox, article.id, 9);
		const [shown] = await trigger.fetchTestEvent();
		assert.equal((shown.data as { article_id: string }).article_id, article.id);
	});
});
