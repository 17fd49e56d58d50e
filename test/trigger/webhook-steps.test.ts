/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Steps of the ERP Trigger's webhook() (nodes/ErpTrigger/webhook.ts) on their own: reading the
 * event of a signed delivery, and refusing a replay, with an explicit clock and a memory with
 * small limits passed in. The whole webhook() runs through n8n-core in deliveries.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import { readConventions } from '../../nodes/shared/conventions';
import { TriggerMemory } from '../../nodes/ErpTrigger/memory';
import type { Signed } from '../../nodes/ErpTrigger/webhook';
import { readDelivery, refuseReplay } from '../../nodes/ErpTrigger/webhook';

const NOW = 1_800_000_000;
// The credential's conventions at their defaults (Standard Webhooks, the event at the top).
const conventions = readConventions(
	{},
	{
		id: 'n1',
		name: 'ERP Trigger',
		type: 'erpTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	},
);

const signed = (body: string, id?: string): Signed => ({
	conventions,
	headers: {},
	rawBody: Buffer.from(body),
	id,
	timestamp: NOW,
});

describe('reading the event of a signed delivery', () => {
	it('gives the item and the id replays are refused by: the signed id first, else the event id', () => {
		const body = JSON.stringify({
			id: 'evt_1',
			type: 'stock.bas',
			created_at: 'x',
			data: { a: 1 },
		});
		assert.deepEqual(readDelivery(signed(body, 'msg_1'), ['stock.bas']), {
			item: { id: 'evt_1', type: 'stock.bas', created_at: 'x', data: { a: 1 } },
			deliveryId: 'msg_1',
		});
		assert.equal((readDelivery(signed(body), ['*']) as { deliveryId: string }).deliveryId, 'evt_1');
	});

	it('refuses a body that is not JSON or has no id (400), and ignores an event not selected (200)', () => {
		assert.deepEqual(readDelivery(signed('{'), ['*']), {
			status: 400,
			body: { error: 'malformed_body', message: 'The body is not valid JSON' },
		});
		const noId = JSON.stringify({ type: 'stock.bas', data: {} });
		assert.equal((readDelivery(signed(noId), ['*']) as { status: number }).status, 400);
		const other = JSON.stringify({ id: 'evt_2', type: 'tva.declaree', data: {} });
		assert.deepEqual(readDelivery(signed(other), ['stock.bas']), {
			status: 200,
			body: { received: true, ignored: 'event_not_selected' },
		});
	});
});

describe('refusing a replay', () => {
	it('answers each verdict: none when accepted, 200 duplicate, 503 with Retry-After when full, 409 before the memory began', () => {
		const memory = new TriggerMemory({ since: NOW, maxLive: 1, maxRetired: 0 }).node('wf/n1');
		const step = (id: string, signedAt?: number) => refuseReplay(memory, { id, signedAt }, NOW, 30);
		const duplicate = { status: 200, body: { received: true, ignored: 'duplicate' } };
		assert.equal(step('evt_1', NOW), undefined);
		assert.deepEqual(step('evt_1', NOW), duplicate);
		assert.equal(step('evt_2', NOW)?.status, 503);
		assert.equal(step('evt_2', NOW)?.retryAfter, 30);
		assert.equal(step('evt_3', NOW - 1)?.status, 409);
		// No signed time (a body HMAC without a timestamp header): remembered from its arrival.
		assert.deepEqual(step('evt_1'), duplicate);
	});
});
