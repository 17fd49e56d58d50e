/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The credential's optional Rate Limit (Requests per Minute) (issue 30): on both credential types,
 * off by default; a bad value refused before anything is sent, naming the field; and never above
 * what the server reports in headers (fake time).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from '@jest/globals';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { ErpApi } from '../../credentials/ErpApi.credentials';
import { ErpOAuth2Api } from '../../credentials/ErpOAuth2Api.credentials';
import { answered, newPace, sent, turnAtMs } from '../../nodes/shared/transport/pacer';
import { runWorkflow, TestCredentials } from '../harness';
import { ERP } from '../erp/setup';
import { stats } from './helpers';
import { NOW } from './simulate';

let sb: SandboxHandle;
beforeAll(async () => {
	sb = await startSandbox({ port: 0, articles: 5 });
});
afterAll(async () => {
	await sb.close();
});

const getMany = (rateLimitPerMinute: number) =>
	runWorkflow({
		nodes: [
			{
				name: 'ERP',
				type: ERP,
				parameters: { resource: 'article', operation: 'getAll', limit: 3 },
			},
		],
		credentials: new TestCredentials({
			erpApi: {
				apiKey: DEMO_KEYS.full,
				environment: 'sandbox',
				baseUrl: sb.baseUrl,
				rateLimitPerMinute,
			},
		}),
	});

describe("the credential's Rate Limit (Requests per Minute)", () => {
	test('both credential types carry it, 0 (not set) by default', () => {
		for (const credential of [new ErpApi(), new ErpOAuth2Api()]) {
			const field = credential.properties.find((p) => p.name === 'rateLimitPerMinute');
			assert.equal(field?.displayName, 'Rate Limit (Requests per Minute)', credential.name);
			assert.equal(field?.default, 0);
		}
	});

	test('a negative value is refused before anything is sent, naming the field; 0 and a rate run', async () => {
		const before = (await stats(sb.url)).requests;
		const refused = await getMany(-5);
		assert.equal(refused.success, false);
		const error = refused.error as Error;
		assert.equal(error.name, 'NodeOperationError', error.message);
		assert.match(error.message, /Rate Limit \(Requests per Minute\) must be a positive number/);
		assert.equal((await stats(sb.url)).requests, before, 'nothing reached the sandbox');
		for (const rate of [0, 600]) {
			const result = await getMany(rate);
			assert.equal(result.success, true, result.error?.message);
			assert.equal(result.output('ERP').length, 3);
		}
	});

	test('never overrides the rate the server reports in headers (fake time)', () => {
		const pace = newPace(NOW);
		// 1 per minute: a minute between requests if it applied.
		pace.credentialRate = 1;
		sent(pace, NOW);
		const info = { limit: 10, remaining: 9, resetSeconds: 10 };
		answered(pace, { status: 200, info, sentAtMs: NOW }, NOW + 5);
		assert.ok(turnAtMs(pace, 0, NOW + 5) - NOW < 1200, 'spaced at about 10 per 10 s');
		// Control: the same rate with no headers spaces the next request by a minute.
		const bare = newPace(NOW);
		bare.credentialRate = 1;
		sent(bare, NOW);
		answered(bare, { status: 200, info: {}, sentAtMs: NOW }, NOW + 5);
		assert.ok(turnAtMs(bare, 0, NOW + 5) - NOW > 59_000);
	});
});
