/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * One real n8n for the whole test run (issue 38), shared by the end-to-end files that can share
 * it (`startE2e({ shared: true })`, test/e2e/helpers.ts): each of them brings its own sandbox,
 * credential and workflows, and never stops, restarts or reconfigures n8n. A file that must own
 * its n8n (restarts, crashes, n8n settings, another version, n8n's log) says so in its header and
 * starts its own.
 *
 * The jest global set-up (test/harness/jest-global-setup.js) starts it in the background when the
 * run has an end-to-end file, so that the other files need not wait for it; it writes what the
 * files need to the run's folder once n8n answers. The global teardown stops it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Log } from '../../scripts/n8n-env';
import {
	freePort,
	type N8nConfig,
	N8nRest,
	prepareInstance,
	startN8n,
} from '../../scripts/n8n-instance';

const READY = 'shared-n8n.json';
const FAILED = 'shared-n8n.failed';
/** Written by a file whose test failed on the shared n8n: the teardown keeps n8n's folder. */
const KEEP = 'shared-n8n.keep';
const MINUTE = 60_000;

/** The run's n8n: its settings, URL, and the owner's session (signed in once for the run). */
export type SharedN8n = { config: N8nConfig; url: string; session: string };

/** For the global set-up: prepares and starts the run's n8n, then says so in `runDir`. */
export async function startSharedN8n(runDir: string, log: Log): Promise<{ stop(): Promise<void> }> {
	let stopN8n = async (): Promise<void> => {};
	let userFolder: string | undefined;
	try {
		const prepared = await prepareInstance('n8n-nodes-erp-e2e-shared-', log);
		userFolder = prepared.userFolder;
		const config: N8nConfig = {
			env: prepared.env,
			paths: prepared.paths,
			port: await freePort(),
			brokerPort: await freePort(),
		};
		const n8n = await startN8n(config);
		stopN8n = n8n.stop;
		const rest = new N8nRest(n8n.url);
		await rest.signInAsOwner();
		const shared: SharedN8n = { config, url: n8n.url, session: rest.session };
		fs.writeFileSync(path.join(runDir, READY), JSON.stringify(shared));
		log(`the run's shared n8n answers on ${n8n.url} (its folder: ${userFolder})`);
	} catch (error) {
		fs.writeFileSync(path.join(runDir, FAILED), (error as Error).message);
		log(`the run's shared n8n did not start: ${(error as Error).message}`);
	}
	return {
		async stop() {
			await stopN8n();
			if (!userFolder) return;
			if (fs.existsSync(path.join(runDir, KEEP)))
				log(`a test failed on the run's shared n8n; its data and logs are kept in ${userFolder}`);
			else fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}

/**
 * For a test file: the run's shared n8n, once it answers; undefined outside a jest run with the
 * global set-up (the file then starts its own).
 */
export async function sharedN8n(log: Log): Promise<SharedN8n | undefined> {
	const runDir = process.env.ERP_TEST_RUN_DIR;
	if (!runDir) return undefined;
	log("waiting for the run's shared n8n");
	const deadline = Date.now() + 45 * MINUTE;
	for (;;) {
		if (fs.existsSync(path.join(runDir, READY)))
			return JSON.parse(fs.readFileSync(path.join(runDir, READY), 'utf8')) as SharedN8n;
		if (fs.existsSync(path.join(runDir, FAILED)))
			throw new Error(
				`the run's shared n8n did not start: ${fs.readFileSync(path.join(runDir, FAILED), 'utf8')}`,
			);
		if (Date.now() > deadline) throw new Error("the run's shared n8n did not answer in 45 minutes");
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** For a file whose test failed on the shared n8n: keep n8n's folder after the run. */
export function keepSharedN8n(): void {
	const runDir = process.env.ERP_TEST_RUN_DIR;
	if (runDir) fs.writeFileSync(path.join(runDir, KEEP), '');
}
