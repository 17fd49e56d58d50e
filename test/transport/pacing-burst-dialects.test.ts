/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The flash sale through n8n-core's engine over real HTTP (test/transport/pacing-burst.ts): the fixed window reporting each header dialect.
// A file of its own: the bursts are paced in real time, so the files wait side by side.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import { useSandbox } from '../harness/sandbox';
import { BURST_TIMEOUT_MS, flashSale, LIMIT, tagOf, WINDOW_SECONDS } from './pacing-burst';

const sb = useSandbox();

describe.each([['draft7'], ['structured'], ['x-ratelimit'], ['none']] as const)(
	'the fixed window reporting %s',
	(headers) => {
		test(
			'10 concurrent orders: every order invoiced once and paid, under 2 % answered 429 (Retry-After only: under 10 %)',
			async () => {
				// Retry-After only reports no rate: the credential's is set, as the guide advises.
				const rate = headers === 'none' ? (LIMIT * 60) / WINDOW_SECONDS : undefined;
				const limiter = { algorithm: 'fixed-window' as const, headers };
				const report = await flashSale(
					sb,
					`fixed ${headers}`,
					10,
					`D${tagOf(headers)}`,
					limiter,
					rate,
				);
				const max = headers === 'none' ? 0.1 : 0.02;
				assert.ok(
					report.refused / report.requests < max,
					`${report.refused} of ${report.requests}`,
				);
			},
			BURST_TIMEOUT_MS,
		);
	},
);
