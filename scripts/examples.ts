/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The example workflows in `examples/` and the sandbox credential they use, imported into n8n
 * with its CLI (`import:credentials`, `import:workflow`). Used by `npm start` and the e2e tests.
 *
 * The JSON files are the ones users import by hand. They refer to the credential by the id
 * below (n8n asks to pick another credential when that id does not exist), and example (b)
 * posts to CHAT_URL_PLACEHOLDER, which the user replaces with their chat's incoming-webhook URL.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

import type { Log } from './n8n-env';
import {
	importCredentials,
	n8nCli,
	REPO_DIR,
	type CredentialImport,
	type N8nConfig,
} from './n8n-instance';

export const EXAMPLES_DIR = path.join(REPO_DIR, 'examples');

/** The `erpApi` credential the examples point to. */
export const SANDBOX_CREDENTIAL = { id: 'ErpSandboxDemo01', name: 'ERP sandbox (demo key)' };
/** The sandbox's demo key with every scope (a test key: it works only with the sandbox). */
export const SANDBOX_DEMO_KEY = 'sk_test_demo_full';
/** Where example (b) posts its chat message until the user sets their own URL. */
export const CHAT_URL_PLACEHOLDER = 'https://chat.example.com/hooks/your-incoming-webhook';

/** The fixed workflow ids of the examples (set in the JSON files). */
export const EXAMPLE_IDS = {
	orderToInvoice: 'ErpOrderInvoice1',
	lowStockToChat: 'ErpLowStockChat1',
	lowStockByPolling: 'ErpLowStockPoll1',
	aiAgent: 'ErpAiAgentTool01',
	mcpServer: 'ErpMcpServer0001',
};

export type Workflow = {
	id: string;
	name: string;
	nodes: Array<{
		name: string;
		type: string;
		parameters: Record<string, unknown>;
		[key: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	[key: string]: unknown;
};

/** Every `examples/*.json`, parsed, in file-name order. */
export function loadExamples(): Array<{ file: string; workflow: Workflow }> {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({
			file,
			workflow: JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Workflow,
		}));
}

/** The example with this workflow id (one of EXAMPLE_IDS). */
export function loadExample(id: string): Workflow {
	const found = loadExamples().find(({ workflow }) => workflow.id === id);
	if (!found) throw new Error(`No example workflow has the id ${id} (examples/*.json)`);
	return found.workflow;
}

/** The example with its chat URL placeholder replaced. */
export function wireExample(workflow: Workflow, options: { chatUrl: string }): Workflow {
	return JSON.parse(
		JSON.stringify(workflow).split(CHAT_URL_PLACEHOLDER).join(options.chatUrl),
	) as Workflow;
}

/**
 * The demo credential as `npm start` sets it: the sandbox's Base URL and demo key, no Webhook
 * Secret, Custom API Conventions off (the contract's names, as the sandbox starts).
 */
export function demoCredential(sandboxBaseUrl: string): CredentialImport {
	return {
		...SANDBOX_CREDENTIAL,
		type: 'erpApi',
		data: {
			environment: 'sandbox',
			baseUrl: sandboxBaseUrl,
			apiKey: SANDBOX_DEMO_KEY,
			webhookSecret: '',
		},
	};
}

/**
 * Imports the sandbox credential, as demoCredential gives it (and `credentials`, if any), and the
 * given workflows into n8n (before or while it runs). Both keep their ids, so importing again
 * replaces them: with no workflows, this puts the demo credential back to its defaults whatever
 * was changed in it.
 */
export async function importWorkflows(
	config: N8nConfig,
	options: { sandboxBaseUrl: string; workflows: Workflow[]; credentials?: CredentialImport[] },
	log: Log,
): Promise<void> {
	await importCredentials(
		config,
		[demoCredential(options.sandboxBaseUrl), ...(options.credentials ?? [])],
		log,
	);
	await importWorkflowFiles(config, options.workflows, log);
}

/** Imports workflows with the n8n CLI, keeping their ids (importing again replaces them). */
export async function importWorkflowFiles(
	config: N8nConfig,
	workflows: Workflow[],
	log: Log,
): Promise<void> {
	if (workflows.length === 0) return;
	const dir = fs.mkdtempSync(path.join(config.paths.userFolder, 'import-'));
	try {
		for (const workflow of workflows) {
			fs.writeFileSync(path.join(dir, `${workflow.id}.json`), JSON.stringify(workflow));
		}
		await n8nCli(config, ['import:workflow', '--separate', `--input=${dir}`], log);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

export type ChatSink = {
	/** The incoming-webhook URL to give example (b). */
	url: string;
	/** The `text` of each message received, in order. */
	messages: string[];
	close(): Promise<void>;
};

/**
 * Stands in for a Slack/Mattermost incoming webhook on 127.0.0.1: keeps the `text` of each
 * JSON message example (b) posts, and hands it to `onMessage`.
 */
export async function startChatSink(
	port = 0,
	onMessage: (text: string) => void = () => undefined,
): Promise<ChatSink> {
	const messages: string[] = [];
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			let text = body;
			try {
				text = String((JSON.parse(body) as { text?: unknown }).text ?? body);
			} catch {
				// not JSON: keep it as received
			}
			messages.push(text);
			onMessage(text);
			res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', resolve);
	});
	const { port: actual } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${actual}/chat`,
		messages,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
