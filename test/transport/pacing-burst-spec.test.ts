/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The flash sale through n8n-core's engine over real HTTP (test/transport/pacing-burst.ts): a token bucket at the specification's 100 per minute, a bare 429.
// A file of its own: the bursts are paced in real time, so the files wait side by side.
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import { useSandbox } from '../harness/sandbox';
import { BURST_TIMEOUT_MS, flashSale, type Limiter, ORDERS } from './pacing-burst';

const sb = useSandbox();

test(
	`a bare 429 from a token bucket at the specification's 100 per minute (burst 10, as nginx's limit_req), nothing known: ${ORDERS} orders, every one invoiced once and paid, under 10 % answered 429`,
	async () => {
		const limiter: Limiter = {
			algorithm: 'token-bucket',
			headers: 'bare',
			limit: 100,
			windowSeconds: 60,
		};
		const report = await flashSale(sb, 'token bucket bare at 100/min', ORDERS, 'BSPEC', limiter);
		assert.ok(report.refused / report.requests < 0.1, `${report.refused} of ${report.requests}`);
	},
	BURST_TIMEOUT_MS,
);
