/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a development script, not a node */
/**
 * `npm run screenshots`: the README's pictures, made from the current code in real n8n 2.41.1.
 * Builds and installs the package into a temporary n8n, imports the examples wired to the
 * sandbox, then drives the editor in Debian's headless Chromium (`apt-get install chromium`)
 * with playwright-core, and writes PNGs to docs/images/. Nothing is downloaded but n8n itself
 * (through scripts/n8n-env.ts, cached).
 *
 * CHROMIUM=/path/to/chromium overrides the browser's location (default /usr/bin/chromium).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { chromium, type Locator, type Page } from 'playwright-core';

import { startSandbox } from '../sandbox';
import {
	EXAMPLE_IDS,
	importWorkflows,
	loadExamples,
	SANDBOX_DEMO_KEY,
	startChatSink,
	wireExample,
	type Workflow,
} from './examples';
import {
	freePort,
	N8nRest,
	OWNER,
	prepareInstance,
	startN8n,
	type RunningN8n,
} from './n8n-instance';

const OUT_DIR = path.join(__dirname, '..', 'docs', 'images');
const BROWSER_ID = 'n8n-nodes-erp-screenshots';
const log = (line: string) => process.stdout.write(`${line}\n`);

/** The id of the node named `name` in an example. */
function nodeId(workflow: Workflow, name: string): string {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`No node "${name}" in ${workflow.name}`);
	return String(node.id);
}

async function shoot(target: Page | Locator, file: string): Promise<void> {
	await target.screenshot({ path: path.join(OUT_DIR, file) });
	log(`  wrote docs/images/${file}`);
}

/** The little of a page element that `unclip` uses (this script is type-checked without the DOM library). */
interface PageBox {
	tagName: string;
	scrollHeight: number;
	clientHeight: number;
	dataset: Record<string, string | undefined>;
	style: { setProperty(name: string, value: string, priority: string): void };
	querySelectorAll(selector: string): ArrayLike<PageBox>;
}

/**
 * Lets every box in `root` (and `root` itself) whose content is taller than it grow to that
 * content: no fixed or maximum height, no scroll bar. Children come before their parents, so
 * that a parent sees its child grown; passes repeat until nothing changes. Runs in the page.
 */
function unclip(root: PageBox): void {
	const boxes = [root, ...Array.from(root.querySelectorAll('*'))]
		.filter((e) => e.dataset !== undefined && e.style !== undefined)
		.filter((e) => !/^(INPUT|TEXTAREA|SELECT)$/.test(e.tagName))
		.reverse();
	for (let pass = 0; pass < 10; pass++) {
		let changed = false;
		for (const box of boxes) {
			if (box.scrollHeight <= box.clientHeight + 1 || box.dataset.unclipped) continue;
			box.dataset.unclipped = 'true';
			box.style.setProperty('overflow', 'visible', 'important');
			box.style.setProperty('max-height', 'none', 'important');
			box.style.setProperty('height', 'auto', 'important');
			changed = true;
		}
		if (!changed) return;
	}
}

async function main() {
	const browserPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
	if (!fs.existsSync(browserPath)) {
		throw new Error(
			`No Chromium at ${browserPath}: run "apt-get install chromium" (or set CHROMIUM)`,
		);
	}
	fs.mkdirSync(OUT_DIR, { recursive: true });
	let userFolder: string | undefined;
	const cleanups: Array<() => Promise<unknown>> = [];
	try {
		const prepared = await prepareInstance('n8n-nodes-erp-screens-', log);
		userFolder = prepared.userFolder;
		const { env, paths } = prepared;
		const sandbox = await startSandbox({ port: 0 });
		cleanups.push(() => sandbox.close());
		const chat = await startChatSink();
		cleanups.push(() => chat.close());
		const examples = new Map(loadExamples().map(({ workflow }) => [workflow.id, workflow]));
		const config = { env, paths, port: await freePort(), brokerPort: await freePort() };
		await importWorkflows(
			config,
			{
				sandboxBaseUrl: sandbox.baseUrl,
				workflows: [...examples.values()].map((w) => wireExample(w, { chatUrl: chat.url })),
			},
			log,
		);
		log('Starting n8n');
		const n8n: RunningN8n = await startN8n(config);
		cleanups.push(() => n8n.stop());
		const rest = new N8nRest(n8n.url);
		await rest.signInAsOwner();
		// A new OAuth2 credential as a user saves it: Scopes left alone.
		const oauth = await rest.request<{ id: string }>('POST', '/rest/credentials', {
			name: 'ERP OAuth2 (sandbox)',
			type: 'erpOAuth2Api',
			data: {
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				clientId: 'demo-client',
				clientSecret: 'demo-client-secret',
			},
		});

		// An API key credential whose ERP names things its own way, set as the README's "Try it
		// against the sandbox" (steps 1 and 5): Custom API Conventions on with a body HMAC, so that
		// every field the switch opens is in the picture.
		const conventions = await rest.request<{ id: string }>('POST', '/rest/credentials', {
			name: 'ERP API (custom conventions)',
			type: 'erpApi',
			data: {
				environment: 'sandbox',
				baseUrl: sandbox.baseUrl,
				apiKey: SANDBOX_DEMO_KEY,
				customConventions: true,
				cursorParam: 'starting_after',
				pageSizeParam: 'per_page',
				itemsPath: 'items',
				nextCursorPath: 'meta.next',
				signatureScheme: 'bodyHmac',
				signatureHeader: 'X-Hub-Signature-256',
				signaturePrefix: 'sha256=',
				eventTypePath: 'event',
				eventDataPath: 'payload',
			},
		});

		const browser = await chromium.launch({ executablePath: browserPath, headless: true });
		cleanups.push(() => browser.close());
		const context = await browser.newContext({
			viewport: { width: 1440, height: 900 },
			deviceScaleFactor: 1,
		});
		// The session cookie is bound to the editor's browser id (kept in its localStorage).
		await context.addInitScript(
			`localStorage.setItem('n8n-browserId', ${JSON.stringify(BROWSER_ID)})`,
		);
		const login = await context.request.post(`${n8n.url}/rest/login`, {
			headers: { 'browser-id': BROWSER_ID },
			data: { emailOrLdapLoginId: OWNER.email, password: OWNER.password },
		});
		if (!login.ok()) throw new Error(`Sign-in failed: ${login.status()}`);
		const page = await context.newPage();

		const order = examples.get(EXAMPLE_IDS.orderToInvoice) as Workflow;
		const lowStock = examples.get(EXAMPLE_IDS.lowStockToChat) as Workflow;
		const polling = examples.get(EXAMPLE_IDS.lowStockByPolling) as Workflow;
		const settle = async () => await page.waitForTimeout(1500);

		log('Taking the pictures');
		const canvases: Array<[string, string]> = [
			[EXAMPLE_IDS.orderToInvoice, 'order-to-invoice.png'],
			[EXAMPLE_IDS.mcpServer, 'erp-mcp-server.png'],
		];
		for (const [id, file] of canvases) {
			await page.goto(`${n8n.url}/workflow/${id}`);
			await page.locator('.vue-flow__node').first().waitFor();
			await settle();
			await shoot(page, file);
		}

		const panels: Array<[Workflow, string, string]> = [
			[order, 'Issue invoice', 'invoice-issue.png'],
			[order, 'Record settlement', 'settlement-record.png'],
			[order, 'Find or create client', 'client-find-or-create.png'],
			[lowStock, 'Stock low', 'erp-trigger.png'],
			[polling, 'Stock low (polling)', 'erp-polling-trigger.png'],
		];
		// Tall enough for the longest panel (Invoice › Issue) to show its last parameter.
		await page.setViewportSize({ width: 1440, height: 1060 });
		for (const [workflow, name, file] of panels) {
			await page.goto(`${n8n.url}/workflow/${workflow.id}/${nodeId(workflow, name)}`);
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.waitFor();
			await settle();
			await shoot(page, file);
		}

		const credentials: Array<[string, string]> = [
			['ErpSandboxDemo01', 'credential-api-key.png'],
			[oauth.id, 'credential-oauth2.png'],
			[conventions.id, 'credential-conventions.png'],
		];
		// The whole form, unscrolled: in the dialog (n8n's modal: an Element Plus el-dialog whose
		// body scrolls) every box that clips or scrolls its content is let out to its full height,
		// then the dialog is taken whole, title to last field. The window must be taller than the
		// tallest form (Custom API Conventions on: 2,286 px), or the dialog's top is cut off.
		await page.setViewportSize({ width: 1440, height: 3000 });
		for (const [id, file] of credentials) {
			await page.goto(`${n8n.url}/home/credentials/${id}`);
			const form = page.locator('[data-test-id="credential-edit-dialog"]');
			await form.waitFor();
			await settle();
			const dialog = form.locator(
				'xpath=ancestor::div[contains(concat(" ", normalize-space(@class), " "), " el-dialog ")][1]',
			);
			await dialog.evaluate(unclip);
			await settle();
			await shoot(dialog, file);
		}
	} finally {
		for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
		if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

main().catch((error: Error) => {
	process.stderr.write(`npm run screenshots failed: ${error.message}\n`);
	process.exit(1);
});
