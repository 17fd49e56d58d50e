/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The flash sale through n8n-core's engine over real HTTP (test/transport/pacing-burst.ts): the fixed window reporting each header dialect, the four bursts side by side, each on its own sandbox.
// A file of its own: the bursts are paced in real time, so the files wait side by side.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { RateLimitHeaderDialect } from '../../sandbox';
import {
	type Burst,
	BURST_TIMEOUT_MS,
	burstsSideBySide,
	flashSale,
	LIMIT,
	tagOf,
	WINDOW_SECONDS,
} from './pacing-burst';

const DIALECTS = ['draft7', 'structured', 'x-ratelimit', 'none'] as const;
type Dialect = (typeof DIALECTS)[number];

/** Retry-After only reports no rate: the credential's is set, as the guide advises. */
const burst = burstsSideBySide(
	Object.fromEntries(
		DIALECTS.map((headers: RateLimitHeaderDialect): [string, Burst] => [
			headers,
			(sb) =>
				flashSale(
					sb,
					`fixed ${headers}`,
					10,
					`D${tagOf(headers)}`,
					{ algorithm: 'fixed-window', headers },
					headers === 'none' ? (LIMIT * 60) / WINDOW_SECONDS : undefined,
				),
		]),
	) as Record<Dialect, Burst>,
);

describe.each(DIALECTS.map((headers) => [headers]))('the fixed window reporting %s', (headers) => {
	test(
		'10 concurrent orders: every order invoiced once and paid, under 2 % answered 429 (Retry-After only: under 10 %)',
		async () => {
			const report = await burst(headers);
			const max = headers === 'none' ? 0.1 : 0.02;
			assert.ok(report.refused / report.requests < max, `${report.refused} of ${report.requests}`);
		},
		BURST_TIMEOUT_MS,
	);
});
