/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The ERP Trigger's versions: 1 (workflows made before 1.1) and 1.1 (new nodes), the same node.
// n8n treats them differently before the node runs: at version 1 it evaluates an expression on
// every request (its legacy Binary Data option) and reads every body; from 1.1 it leaves the body
// of a content type it does not parse unread, and the node reads it itself. Every delivery is
// checked the same way at both versions. Manual registration, through the harness's webhook path.
import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';

import { DEMO_KEYS } from '../../sandbox';
import { ErpTrigger } from '../../nodes/ErpTrigger/ErpTrigger.node';
import { TestCredentials } from '../harness';
import { activate } from './process';
import { newSecret, signedDelivery } from './helpers';

const CREDENTIAL = {
	apiKey: DEMO_KEYS.full,
	environment: 'sandbox',
	baseUrl: 'http://127.0.0.1:9/v1',
};

describe('ERP Trigger versions', () => {
	it('a new node is version 1.1', () => {
		const { description } = new ErpTrigger();
		assert.deepEqual(description.version, [1, 1.1]);
		assert.equal(description.defaultVersion, 1.1);
	});

	for (const typeVersion of [1, 1.1]) {
		it(`at version ${typeVersion}, a delivery is checked on its raw body whatever its content type`, async () => {
			const secret = newSecret();
			const trigger = await activate({
				parameters: { events: ['*'], registration: 'manual' },
				credentials: new TestCredentials({ erpApi: { ...CREDENTIAL, webhookSecret: secret } }),
				workflowId: `versions-${typeVersion}`,
				typeVersion,
			});
			for (const contentType of ['application/json', 'application/octet-stream', undefined]) {
				const delivery = signedDelivery(secret, { type: 'stock.bas' });
				const headers: Record<string, string> = { ...delivery.headers };
				if (contentType === undefined) delete headers['content-type'];
				else headers['content-type'] = contentType;
				const accepted = await trigger.deliver({ headers, body: delivery.body });
				assert.equal(accepted.status, 200, `${contentType}: ${JSON.stringify(accepted.body)}`);
				assert.deepEqual(
					accepted.items?.map((item) => item.json.id),
					[headers['webhook-id']],
				);
				// Controls: the same body signed with another secret, and no body, are refused.
				const forged = signedDelivery(newSecret(), { type: 'stock.bas' });
				const refused = await trigger.deliver({
					headers: { ...forged.headers, 'content-type': headers['content-type'] ?? '' },
					body: forged.body,
				});
				assert.equal(refused.status, 401);
				assert.equal((refused.body as { reason?: string }).reason, 'no_matching_signature');
				const empty = await trigger.deliver({ headers, body: '' });
				assert.equal((empty.body as { reason?: string }).reason, 'missing_body');
			}
			await trigger.deactivate();
		});
	}
});
