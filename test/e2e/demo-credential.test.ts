/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * `npm start` puts its demo credential back to its defaults at each start (issue 31). A guide's
 * step may turn on Custom API Conventions in it (an HMAC signature, say); the next start brings a
 * sandbox that speaks the contract again, so a credential left as it was would answer every
 * low-stock delivery 401, silently. What `scripts/start.ts` runs at each start is
 * `importWorkflows` of `scripts/examples.ts` (with no workflows once they are imported); here it
 * runs against real n8n's database with n8n's own CLI, and the credential is read back with
 * `n8n export:credentials --decrypted`.
 * Control (the read can fail): the changed credential reads back changed before the reset.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { demoCredential, importWorkflows, SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { importCredentials, keepFilesOnFailure, n8nCli, skipE2e } from '../../scripts/n8n-instance';
import { e2eLog, MINUTE, startE2e, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('demo-credential');

(SKIP ? describe.skip : describe)(`real n8n ${N8N_VERSION}: npm start's demo credential`, () => {
	let e2e: E2e;
	const files = keepFilesOnFailure(log);

	beforeAll(async () => {
		e2e = await startE2e({
			folderPrefix: 'n8n-nodes-erp-e2e-demo-',
			log,
			files,
			start: false,
		});
	}, 30 * MINUTE);

	afterAll(async () => {
		await e2e?.stop('setup');
	}, 10 * MINUTE);

	/** The credential's data as n8n holds it. */
	async function readBack(): Promise<Record<string, unknown>> {
		const file = path.join(e2e.userFolder, 'export.json');
		await n8nCli(
			e2e.config,
			['export:credentials', `--id=${SANDBOX_CREDENTIAL.id}`, '--decrypted', `--output=${file}`],
			log,
		);
		const [credential] = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{
			data: Record<string, unknown>;
		}>;
		fs.rmSync(file);
		return credential.data;
	}

	it(
		'is back to its defaults at the next start, whatever a guide changed in it',
		files.track(async () => {
			const defaults = demoCredential(e2e.sandbox.baseUrl);
			const changed = {
				...defaults,
				data: {
					...defaults.data,
					customConventions: true,
					signatureScheme: 'bodyHmac',
					signatureHeader: 'X-Hub-Signature-256',
					signaturePrefix: 'sha256=',
					eventTypePath: 'event',
					eventDataPath: 'payload',
				},
			};
			await importCredentials(e2e.config, [changed], log);
			assert.deepEqual(await readBack(), changed.data, 'control: the change is read back');

			await importWorkflows(
				e2e.config,
				{ sandboxBaseUrl: e2e.sandbox.baseUrl, workflows: [] },
				log,
			);
			assert.deepEqual(await readBack(), defaults.data);
		}),
		10 * MINUTE,
	);
});
