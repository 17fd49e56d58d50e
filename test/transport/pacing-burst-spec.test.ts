/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The flash sale through n8n-core's engine over real HTTP (test/transport/pacing-burst.ts): a token bucket at the specification's 100 per minute, a bare 429, nothing known.
// 12 orders (96 requests, about a minute at that rate) rather than the 30 of the files at 600 per minute: the promise is the
// rate used when nothing is known, and 12 orders at once already open with 12 client look-ups against a burst of 10; sent
// unpaced, most of the 96 would be refused (the bucket refills 1.7 a second; the control of 40 at once: pacing-burst-token).
// The real-n8n flash sale at this rate keeps 30 orders (test/e2e/flash-sale.test.ts).
import assert from 'node:assert/strict';
import { test } from '@jest/globals';

import { useSandbox } from '../harness/sandbox';
import { BURST_TIMEOUT_MS, flashSale, type Limiter } from './pacing-burst';

const sb = useSandbox();
const ORDERS = 12;

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
