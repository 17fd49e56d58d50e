/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The TLS 1.3 minimum in real n8n 2.41.1 (issue 18): the packed tarball installed as a community
 * package, two API key credentials whose Base URLs are HTTPS servers in front of the sandbox (one
 * offers only TLS 1.2, one TLS 1.3; certificate made at test time, see
 * test/transport/tls-servers.ts), and a workflow per credential run as the editor runs it (n8nExecute). n8n trusts the
 * certificate through NODE_EXTRA_CA_CERTS, as an administrator would configure a private CA.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { UNPACED } from '../../sandbox';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, n8nExecute, skipE2e } from '../../scripts/n8n-instance';
import type { Front } from '../transport/tls-servers';
import { expectCount } from './count';
import { articlesWorkflow, e2eLog, MINUTE, startE2e, type E2e } from './helpers';
import { startTlsFronts, TLS_CREDENTIALS } from './tls-fronts';

const SKIP = skipE2e();
const log = e2eLog('tls');

const WORKFLOW_IDS = { tls12: 'ErpE2eTls12Only1', tls13: 'ErpE2eTls13Srv01' };

(SKIP ? describe.skip : describe)(`real n8n ${N8N_VERSION}: TLS 1.3 minimum on https`, () => {
	let e2e: E2e;
	let tls12: Front;
	let tls13: Front;
	const files = keepFilesOnFailure(log);
	const track = files.track;

	beforeAll(async () => {
		// Its own n8n: started once it trusts the fronts' certificate (NODE_EXTRA_CA_CERTS).
		e2e = await startE2e({
			folderPrefix: 'n8n-nodes-erp-e2e-tls-',
			start: false,
			log,
			files,
			sandbox: { rateLimit: UNPACED },
			workflows: () => [
				articlesWorkflow(WORKFLOW_IDS.tls12, TLS_CREDENTIALS.tls12),
				articlesWorkflow(WORKFLOW_IDS.tls13, TLS_CREDENTIALS.tls13),
			],
			credentials: async () => fronts.credentials,
		});
		const fronts = await startTlsFronts(e2e);
		({ tls12, tls13 } = fronts);
		await e2e.start();
	}, 55 * MINUTE);

	afterAll(async () => {
		await tls12?.close();
		await tls13?.close();
		await e2e?.stop('setup');
	}, 10 * MINUTE);

	it(
		'the ERP node works against the TLS 1.3 server',
		track(async () => {
			const run = await n8nExecute(e2e.config, WORKFLOW_IDS.tls13, log);
			const items = run.data.resultData.runData.ERP[0].data.main[0];
			assert.equal(items.length, 3);
			assert.deepEqual([...new Set(tls13.protocols)], ['TLSv1.3']);
		}),
		10 * MINUTE,
	);

	it(
		'the ERP node refuses the TLS 1.2-only server, once, naming the cause',
		track(async () => {
			await assert.rejects(n8nExecute(e2e.config, WORKFLOW_IDS.tls12, log), (error: Error) => {
				assert.ok(
					error.message.includes(
						`The ERP server at ${tls12.origin} does not offer TLS 1.3, which the ERP API requires`,
					),
					error.message.slice(-2000),
				);
				return true;
			});
			// One attempt, not retried (n8n execute has exited; counted all the same).
			await expectCount('connections to the TLS 1.2-only server', 1, async () => ({
				count: tls12.connections,
			}));
			assert.deepEqual(tls12.protocols, [], 'no handshake completed');
		}),
		10 * MINUTE,
	);
});
