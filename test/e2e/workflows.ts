/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/** For the end-to-end files: what they import into real n8n, and what n8n printed. */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Workflow } from '../../scripts/examples';
import { n8nCli, type N8nConfig } from '../../scripts/n8n-instance';

/** A Manual Trigger named Start, then one ERP node with the given credential and parameters. */
export function manualErpWorkflow(spec: {
	id: string;
	name: string;
	/** The ERP node's name. */
	node: string;
	credentials: Record<string, { id: string; name: string }>;
	parameters: Record<string, unknown>;
}): Workflow {
	const { id, node } = spec;
	return {
		id,
		name: spec.name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-1`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${id}-2`,
				name: node,
				type: 'n8n-nodes-erp.erp',
				typeVersion: 1,
				position: [220, 0],
				credentials: spec.credentials,
				parameters: spec.parameters,
			},
		],
		connections: { Start: { main: [[{ node, type: 'main', index: 0 }]] } },
	};
}

/**
 * Imports credentials with `n8n import:credentials` (n8n encrypts a plain `data` object as it is);
 * the file holding them is removed at once.
 */
export async function importCredentials(
	config: N8nConfig,
	credentials: Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>,
	log: (line: string) => void,
): Promise<void> {
	const credentialFile = path.join(config.paths.userFolder, `credentials-${Date.now()}.json`);
	fs.writeFileSync(credentialFile, JSON.stringify(credentials), { mode: 0o600 });
	try {
		await n8nCli(config, ['import:credentials', `--input=${credentialFile}`], log);
	} finally {
		fs.rmSync(credentialFile, { force: true });
	}
}

/** What n8n printed for the last `n8n execute` of this workflow (the setup log's tail from it). */
export function lastRunLog(config: N8nConfig, workflowId: string): string {
	const setupLog = fs.readFileSync(config.paths.setupLog, 'utf8');
	return setupLog.slice(setupLog.lastIndexOf(`--id=${workflowId}`));
}
