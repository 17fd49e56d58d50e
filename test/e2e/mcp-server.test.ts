/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The MCP example (examples/erp-mcp-server.json) in real n8n, imported as `npm start` imports it
 * and published, driven by the official MCP TypeScript client (@modelcontextprotocol/sdk) over
 * Streamable HTTP at the MCP Server Trigger's production URL (`/mcp/<path>`): the client lists the
 * tools, searches articles, reads one by reference, and a call without its required argument
 * comes back as a schema error (control: the same call with the argument succeeds). On the run's
 * shared n8n (test/e2e/shared-n8n.ts).
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
// The SDK's subpaths come from its exports map ("./*"), which Node and TypeScript resolve and
// the lint's import resolver does not.
// eslint-disable-next-line import-x/no-unresolved
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
// eslint-disable-next-line import-x/no-unresolved
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { sandboxStats } from '../../sandbox';
import { EXAMPLE_IDS, loadExample } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectCount } from './count';
import { e2eLog, erp, MINUTE, startPublished, type ApiJson, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e mcp');

const example = loadExample(EXAMPLE_IDS.mcpServer);
const trigger = example.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger')!;
/** The tools, by node name: the MCP Server Trigger offers each under its node's name. */
const TOOL_NAMES = example.nodes
	.filter((n) => n.type === 'n8n-nodes-erp.erpTool')
	.map((n) => n.name)
	.sort();

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

/** The JSON a tool answered (the text of its first content part). */
function toolJson(result: ToolResult): ApiJson {
	assert.notEqual(result.isError, true, JSON.stringify(result));
	return JSON.parse(String(result.content[0]?.text));
}

(SKIP ? describe.skip : describe)(`the MCP server example in real n8n ${N8N_VERSION}`, () => {
	let e2e: E2e;
	let client: Client;
	const files = keepFilesOnFailure(log);
	const track = files.track;

	beforeAll(async () => {
		e2e = await startPublished(example, {
			folderPrefix: 'n8n-nodes-erp-e2e-mcp-',
			log,
			files,
			shared: true,
		});
		client = new Client({ name: 'n8n-nodes-erp-e2e', version: '1.0.0' });
		const url = new URL(`${e2e.n8n!.url}/mcp/${String(trigger.parameters.path)}`);
		await client.connect(new StreamableHTTPClientTransport(url));
	}, 75 * MINUTE);

	afterAll(async () => {
		await client?.close();
		await e2e?.stop();
	}, 80 * MINUTE);

	const call = async (name: string, args: Record<string, unknown>) =>
		(await client.callTool({ name, arguments: args }, undefined, {
			timeout: 2 * MINUTE,
		})) as ToolResult;

	const articleReads = async () => {
		const { byPath } = await sandboxStats(e2e.sandbox.url);
		return Object.entries(byPath)
			.filter(([route]) => route.startsWith('GET /v1/articles'))
			.reduce((sum, [, count]) => sum + count, 0);
	};

	it(
		'lists the six read tools, each with its description and its required arguments',
		track(async () => {
			const { tools } = await client.listTools();
			assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
			const byName = new Map(tools.map((t) => [t.name, t]));
			for (const node of example.nodes.filter((n) => n.type === 'n8n-nodes-erp.erpTool'))
				assert.equal(byName.get(node.name)!.description, node.parameters.toolDescription);
			const required = (name: string) => byName.get(name)!.inputSchema.required ?? [];
			assert.deepEqual(required('search_articles'), ['search_text']);
			assert.deepEqual(required('get_article'), ['reference']);
			assert.deepEqual(required('client_invoices'), ['client_id']);
		}),
		80 * MINUTE,
	);

	it(
		'search_articles finds the mugs; get_article reads one by its reference, as the ERP holds it',
		track(async () => {
			const mugs = (await erp(e2e.sandbox, '/articles?q=mug&limit=100')).data;
			assert.deepEqual(
				mugs.map((a: { reference: string }) => a.reference),
				['REF-000001', 'REF-000002'],
			);

			const found = toolJson(await call('search_articles', { search_text: 'mug' }));
			const list = Array.isArray(found) ? found : [found];
			assert.deepEqual(
				list.map((a: ApiJson) => [a.reference, a.designation, a.stock]),
				mugs.map((a: ApiJson) => [a.reference, a.designation, a.stock]),
			);
			assert.equal(list[0].prix_ht_decimal, mugs[0].prix_ht / 100, 'decimal amounts are on');

			const before = await articleReads();
			const one = toolJson(await call('get_article', { reference: 'REF-000002' }));
			const read = Array.isArray(one) ? one[0] : one;
			assert.equal(read.id, mugs[1].id);
			assert.equal(read.designation, mugs[1].designation);
			// By reference: one search for the reference, then the article by id.
			await expectCount('article reads in the sandbox for get_article', 2, async () => ({
				count: (await articleReads()) - before,
			}));
		}),
		80 * MINUTE,
	);

	it(
		'a call without its required argument is a schema error, and reaches no ERP (control: with it, it succeeds)',
		track(async () => {
			const before = await articleReads();
			let answer: ToolResult | undefined;
			let thrown: Error | undefined;
			try {
				answer = await call('get_article', {});
			} catch (error) {
				thrown = error as Error;
			}
			const text = thrown?.message ?? answer!.content.map((c) => c.text ?? '').join('\n');
			log(`get_article without reference: ${thrown ? 'threw' : 'answered'} ${text.slice(0, 300)}`);
			assert.ok(thrown || answer?.isError === true, `not an error: ${text}`);
			assert.match(text, /reference/);
			assert.match(text, /required|invalid/i);
			await expectCount('article reads in the sandbox for the refused call', 0, async () => ({
				count: (await articleReads()) - before,
			}));

			// Control: the same tool with its argument reads the ERP.
			const ok = toolJson(await call('get_article', { reference: 'REF-000001' }));
			assert.equal((Array.isArray(ok) ? ok[0] : ok).reference, 'REF-000001');
			await expectCount('article reads in the sandbox for the control call', 2, async () => ({
				count: (await articleReads()) - before,
			}));
		}),
		80 * MINUTE,
	);
});
