/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * `npm start`: the seeded ERP sandbox plus real n8n with this package installed, the sandbox
 * credential and the example workflows, on 127.0.0.1. Ctrl-C stops everything.
 *
 * n8n's data lives in ~/.cache/n8n-nodes-erp/demo/ (delete it to start over), outside the
 * repository so that lint and git never see it; Node 24 and n8n are cached beside it (see
 * scripts/n8n-env.ts).
 */
import * as path from 'node:path';
import * as fs from 'node:fs';

import { startSandbox } from '../sandbox';
import {
	importWorkflows,
	loadExamples,
	SANDBOX_CREDENTIAL,
	startChatSink,
	wireExample,
} from './examples';
import { PUBLISHED_EXAMPLES, workflowLines } from './banner';
import { cacheRoot, ensureN8n, n8nVersion } from './n8n-env';
import {
	assertPortFree,
	buildAndPack,
	installPackage,
	N8nRest,
	n8nPaths,
	OWNER,
	startN8n,
	type RunningN8n,
} from './n8n-instance';

const HOST = '127.0.0.1';
const N8N_PORT = 5678;
const BROKER_PORT = 5679;
const SANDBOX_PORT = 4010;
const CHAT_PORT = 4011;

const log = (line: string) => process.stdout.write(`${line}\n`);
const step = (line: string) => log(`▸ ${line}`);

async function main() {
	const started = Date.now();
	const paths = n8nPaths(path.join(cacheRoot(), 'demo'));
	fs.mkdirSync(paths.userFolder, { recursive: true });
	const cleanups: Array<() => Promise<void>> = [];
	let n8n: RunningN8n | undefined;
	let stopping = false;
	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		log('\nStopping n8n and the sandbox…');
		for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
		log('Stopped.');
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));

	try {
		await assertPortFree(N8N_PORT, 'n8n');
		await assertPortFree(BROKER_PORT, "n8n's task broker");
		await assertPortFree(SANDBOX_PORT, 'ERP sandbox');
		await assertPortFree(CHAT_PORT, 'chat sink');

		step('Building and packing n8n-nodes-erp');
		const tarball = await buildAndPack(path.join(paths.userFolder, 'pack'), paths.setupLog, log);

		step(`Starting the ERP sandbox on http://${HOST}:${SANDBOX_PORT}/v1`);
		const sandbox = await startSandbox({ port: SANDBOX_PORT, host: HOST });
		cleanups.push(() => sandbox.close());
		const chat = await startChatSink(CHAT_PORT, (text) => log(`💬 chat: ${text}`));
		cleanups.push(() => chat.close());

		step(`Checking Node 24 and n8n ${n8nVersion()} (installed once, then cached)`);
		const env = await ensureN8n(log);

		step('Installing the package into n8n as a community package');
		await installPackage(paths, tarball, log);

		const config = { env, paths, port: N8N_PORT, brokerPort: BROKER_PORT };
		const marker = path.join(paths.userFolder, 'examples-imported');
		// The sandbox starts with the contract's conventions each time: the demo credential does too,
		// whatever a guide's step changed in it (an HMAC signature left on would refuse every delivery).
		const workflows = fs.existsSync(marker)
			? []
			: loadExamples().map(({ workflow }) => wireExample(workflow, { chatUrl: chat.url }));
		step(
			workflows.length > 0
				? 'Importing the sandbox credential and the example workflows'
				: `Putting the "${SANDBOX_CREDENTIAL.name}" credential back to its defaults`,
		);
		await importWorkflows(config, { sandboxBaseUrl: sandbox.baseUrl, workflows }, log);

		step(`Starting n8n on http://${HOST}:${N8N_PORT} (log: ${paths.n8nLog})`);
		n8n = await startN8n(config);
		const running = n8n;
		cleanups.push(() => running.stop());

		const rest = new N8nRest(n8n.url);
		const signIn = await rest.signInAsOwner();
		if (!fs.existsSync(marker)) {
			step('Publishing the order-to-invoice, low-stock and MCP server examples');
			for (const id of PUBLISHED_EXAMPLES) await rest.activate(id);
			fs.writeFileSync(marker, new Date().toISOString() + '\n');
		} else {
			// The sandbox starts empty each time, but n8n 2.x does not re-register trigger webhooks
			// when it restarts (a real ERP keeps them): publish those workflows again.
			const published = (
				await rest.request<
					Array<{ id: string; name: string; active: boolean; activeVersionId: string }>
				>('POST', '/rest/workflows/with-node-types', { nodeTypes: ['n8n-nodes-erp.erpTrigger'] })
			).filter((w) => w.active);
			for (const workflow of published) {
				step(`Registering the ERP Trigger of "${workflow.name}" with the new sandbox`);
				await rest.deactivate(workflow.id);
				await rest.activate(workflow.id, workflow.activeVersionId);
			}
		}

		log('');
		log(
			`n8n ${n8nVersion()} with n8n-nodes-erp is ready (${Math.round((Date.now() - started) / 1000)} s).`,
		);
		log('');
		log(`  Open        http://${HOST}:${N8N_PORT}`);
		log(
			`  Sign in     ${OWNER.email} / ${OWNER.password}${signIn === 'created' ? '   (owner account just created)' : ''}`,
		);
		log(
			`  Credential  "${SANDBOX_CREDENTIAL.name}" (the sandbox's demo key, at ${sandbox.baseUrl})`,
		);
		for (const line of workflowLines(loadExamples().map(({ workflow }) => workflow))) log(line);
		log(
			`  MCP server  http://${HOST}:${N8N_PORT}/mcp/erp (Streamable HTTP): point an MCP client at it`,
		);
		log('');
		const order = (body: string) =>
			`    curl -s -X POST http://${HOST}:${N8N_PORT}/webhook/erp-order -H 'content-type: application/json' \\\n      -d '${body}'`;
		log('  Try it:');
		log('  1. Send an order; the answer is the settlement of the invoice it issued:');
		log(
			order(
				'{"order_number":"1042","financial_status":"paid","customer":{"email":"jane@example.com","name":"Jane Doe"},"line_items":[{"sku":"MUG-BLUE","quantity":2}]}',
			),
		);
		log(
			'  2. Sell 12 red mugs (20 in stock, alert threshold 10): the stock falls below the threshold,',
		);
		log(
			'     the ERP sends stock.bas and "low stock to chat" posts a message, printed here as 💬:',
		);
		log(
			order(
				'{"order_number":"1043","financial_status":"paid","customer":{"email":"jane@example.com","name":"Jane Doe"},"line_items":[{"sku":"MUG-RED","quantity":12}]}',
			),
		);
		log(
			`  Chat messages from "low stock to chat" are printed here (its chat URL points to ${chat.url}).`,
		);
		log(
			"  Each run shows in the workflow's Executions tab. The AI example needs an OpenAI-compatible chat model: see its sticky note.",
		);
		log('');
		log('Press Ctrl-C to stop.');

		await running.exited;
		if (!stopping) {
			log(`n8n stopped unexpectedly. See its log: ${paths.n8nLog}`);
			await shutdown(1);
		}
	} catch (error) {
		process.stderr.write(`\nnpm start failed: ${(error as Error).message}\n`);
		await shutdown(1);
	}
}

void main();
