/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The AI example (examples/ai-agent-erp-tool.json) run in real n8n 2.41.1 as a user runs it: a
 * chat message reaches the Chat Trigger's production URL, the AI Agent asks its OpenAI Chat Model,
 * whose credential's Base URL points to a scripted local model (test/e2e/scripted-model.ts); the
 * model calls the ERP tool, the tool searches the sandbox, and the model's final answer, which
 * quotes the tool's result, is what the chat receives.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { sandboxStats } from '../../sandbox';
import { EXAMPLE_IDS, loadExample, type Workflow } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectCount, expectRuns, stableRunCount } from './count';
import { e2eLog, erp, MINUTE, startE2e, type ApiJson, type E2e } from './helpers';
import { FINAL_ANSWER_PREFIX, startScriptedModel, type ScriptedModel } from './scripted-model';

const SKIP = skipE2e();
const log = e2eLog('e2e ai agent');

const example = loadExample(EXAMPLE_IDS.aiAgent);
const chatTrigger = example.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger')!;
const modelNode = example.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi')!;
/**
 * The name the agent gives the *Search articles* tool: n8n-workflow's nodeNameToToolName turns
 * each run of characters other than letters, digits, `_` and `-` into `_`.
 */
const ARTICLE_TOOL = 'Search_articles';

/**
 * The example as imported, with one change: its chat made public. n8n's Chat Trigger answers
 * messages on its production URL (`/webhook/<webhookId>/chat`) only for a public chat (else 404,
 * ChatTrigger.webhook); the editor's *Open chat* uses the test URL of an editor session instead.
 * Public, its Response Mode stays *When Last Node Finishes*: the answer is the agent's output.
 */
function withPublicChat(workflow: Workflow): Workflow {
	return {
		...workflow,
		nodes: workflow.nodes.map((n) =>
			n === chatTrigger ? { ...n, parameters: { ...n.parameters, public: true } } : n,
		),
	};
}

(SKIP ? describe.skip : describe)(`the AI example in real n8n ${N8N_VERSION}`, () => {
	let e2e: E2e;
	let model: ScriptedModel;
	const files = keepFilesOnFailure(log);
	const track = files.track;

	beforeAll(async () => {
		model = await startScriptedModel();
		e2e = await startE2e({
			folderPrefix: 'n8n-nodes-erp-e2e-ai-',
			shared: true,
			log,
			files,
			workflows: () => [withPublicChat(example)],
			credentials: async () => {
				// The credential the example's model node names, as a user fills it in the editor.
				const { id, name } = (modelNode.credentials as { openAiApi: { id: string; name: string } })
					.openAiApi;
				return [
					{
						id,
						name,
						type: 'openAiApi',
						data: { apiKey: 'sk-scripted-local-model', url: model.baseUrl },
					},
				];
			},
		});
		await e2e.rest.activate(EXAMPLE_IDS.aiAgent);
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
		await model?.close();
	}, 80 * MINUTE);

	/** Sends a chat message as the hosted chat does; resolves with the answer's JSON. */
	async function chat(chatInput: string): Promise<ApiJson> {
		const response = await fetch(`${e2e.n8n!.url}/webhook/${String(chatTrigger.webhookId)}/chat`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId: `e2e-${Date.now()}`, chatInput }),
			signal: AbortSignal.timeout(2 * MINUTE),
		});
		const text = await response.text();
		assert.equal(response.status, 200, text);
		return JSON.parse(text);
	}

	/** How many article searches the sandbox has answered. */
	const articleSearches = async () =>
		(await sandboxStats(e2e.sandbox.url)).byPath['GET /v1/articles'] ?? 0;

	/**
	 * One chat turn with the model scripted to call the article tool with `searchText`. Checks
	 * that the model was called twice (the question, then the tool's result), that the tool
	 * searched the sandbox once and that the turn was one execution, each counted with its quiet
	 * period; returns those requests, the tool's result the model was sent, and the chat's answer.
	 */
	async function turn(question: string, searchText: string) {
		model.script = { toolName: ARTICLE_TOOL, args: { search_text: searchText } };
		const first = model.requests.length;
		const searchesBefore = await articleSearches();
		const runsBefore = await stableRunCount(e2e.rest, EXAMPLE_IDS.aiAgent);
		const answer = await chat(question);
		const requests = (await expectCount('model calls of the turn', 2, async () => {
			const made = model.requests.slice(first);
			return { count: made.length, detail: made };
		}))!;
		await expectCount('article searches in the sandbox by the tool', 1, async () => ({
			count: (await articleSearches()) - searchesBefore,
		}));
		const [run] = await expectRuns(e2e.rest, EXAMPLE_IDS.aiAgent, runsBefore + 1);
		assert.equal(run.status, 'success', JSON.stringify(run));
		const toolResults = requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool'));
		const toolResult = String(toolResults[toolResults.length - 1]?.content ?? '');
		log(`the tool's result for "${searchText}": ${toolResult.slice(0, 300)}`);
		return { answer, requests, toolResult };
	}

	it(
		'the example wires the OpenAI Chat Model and both ERP tools to the agent',
		track(async () => {
			const workflow = await e2e.rest.request<Workflow>(
				'GET',
				`/rest/workflows/${EXAMPLE_IDS.aiAgent}`,
			);
			const tools = workflow.nodes.filter((n) => n.type === 'n8n-nodes-erp.erpTool');
			assert.equal(tools.length, 2);
			const connections = workflow.connections as Record<
				string,
				Record<string, Array<Array<{ node: string }>>>
			>;
			const toAgent = tools.map((t) => connections[t.name].ai_tool[0][0].node);
			assert.deepEqual(toAgent, ['AI Agent', 'AI Agent']);
			assert.equal(connections[modelNode.name].ai_languageModel[0][0].node, 'AI Agent');
		}),
		80 * MINUTE,
	);

	it(
		'a chat message asking for mugs: the model calls the ERP tool, the tool searches the sandbox, the answer lists the mugs',
		track(async () => {
			const { answer, requests, toolResult } = await turn(
				'Which mugs do we have, and how many are in stock?',
				'mug',
			);

			// The question with the tools, then the tool's result.
			assert.deepEqual(model.otherRoutes, []);
			const [ask, followUp] = requests;
			assert.equal(ask.model, (modelNode.parameters.model as { value: string }).value);
			assert.equal(
				ask.stream,
				false,
				"LangChain's ChatOpenAI sends stream: false when not streaming",
			);
			assert.ok(
				ask.messages.some(
					(m) => m.role === 'user' && String(m.content).includes('Which mugs do we have'),
				),
				JSON.stringify(ask.messages),
			);
			const offered = (ask.tools ?? []).map((t) => t.function.name).sort();
			assert.deepEqual(offered, [ARTICLE_TOOL, 'Search_clients']);
			const articleTool = ask.tools!.find((t) => t.function.name === ARTICLE_TOOL)!;
			assert.match(String(articleTool.function.description), /Search ERP articles/);
			assert.ok(
				JSON.stringify(articleTool.function.parameters).includes('search_text'),
				JSON.stringify(articleTool.function.parameters),
			);
			assert.ok(
				followUp.messages.some((m) => m.tool_calls?.some((c) => c.function.name === ARTICLE_TOOL)),
				'the follow-up carries the tool call',
			);

			// The tool sent back what the ERP holds (turn() saw it search the sandbox once).
			const mugs = (await erp(e2e.sandbox, '/articles?q=mug&limit=100')).data;
			assert.deepEqual(
				mugs.map((a: { reference: string }) => a.reference),
				['REF-000001', 'REF-000002'],
			);
			for (const mug of mugs) {
				assert.ok(toolResult.includes(mug.reference), toolResult);
				assert.ok(toolResult.includes(mug.designation), toolResult);
			}
			assert.ok(toolResult.includes('prix_ht_decimal'), 'the tool adds decimal amounts');

			// The chat's answer is the model's final text, with the tool's result in it.
			assert.equal(typeof answer.output, 'string', JSON.stringify(answer));
			assert.ok(answer.output.startsWith(FINAL_ANSWER_PREFIX), answer.output);
			for (const mug of mugs) {
				assert.ok(answer.output.includes(mug.reference), answer.output);
				assert.ok(answer.output.includes(mug.designation), answer.output);
			}
		}),
		80 * MINUTE,
	);

	it(
		'control: a tool call for an article that does not exist brings no mug into the tool result or the answer',
		track(async () => {
			// turn() checks that the model was called twice and the tool searched the sandbox once.
			const { answer, toolResult } = await turn('Do we sell unicorn saddles?', 'unicorn saddle');
			// n8n hands the model `""` when the tool returns no item: still a tool result.
			assert.notEqual(toolResult, '', 'the model received a tool result');
			for (const text of [toolResult, answer.output as string]) {
				assert.doesNotMatch(text, /REF-\d{6}/);
				assert.doesNotMatch(text, /mug/i);
			}
			assert.ok(String(answer.output).startsWith(FINAL_ANSWER_PREFIX), answer.output);
		}),
		80 * MINUTE,
	);
});
