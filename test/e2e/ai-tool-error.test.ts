/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * A failing item through the ERP node used as an AI tool (issue 40, item 1) in real n8n: a chat
 * message reaches a published Chat Trigger, the AI Agent (v3) asks a scripted OpenAI-compatible
 * model (./scripted-model.ts), which calls one tool; the test reads the tool result the agent
 * sends back to the model.
 * - n8n's own tool (HTTP Request as a tool) failing on a 404: the shape the agent hands the model.
 * - ERP › Article › Get (by reference) as a tool, for a reference the ERP does not know: the same
 *   shape, its message naming the reference; the execution still succeeds, the model answers.
 * - Control: the same tool for a known reference hands the model the article, which the shape
 *   check refuses (so it can fail).
 * On the run's shared n8n (test/e2e/shared-n8n.ts).
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { demoCredential, SANDBOX_CREDENTIAL, SANDBOX_DEMO_KEY } from '../../scripts/examples';
import type { Workflow } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import { keepFilesOnFailure, skipE2e } from '../../scripts/n8n-instance';
import { expectRuns } from './count';
import { e2eLog, MINUTE, startE2e, type ApiJson, type E2e } from './helpers';
import { FINAL_ANSWER_PREFIX, startScriptedModel, type ScriptedModel } from './scripted-model';

const SKIP = skipE2e();
const log = e2eLog('e2e ai tool error');

const WORKFLOW_ID = 'ErpE2eAiToolErr1';
const CHAT_HOOK = '0c4f5e2a-40c1-4d7e-8b9a-3f2e1d0c9b40';
/** The tools' names as the agent offers them (n8n-workflow's nodeNameToToolName). */
const ERP_TOOL = 'Get_article';
const HTTP_TOOL = 'HTTP_article';

function toolWorkflow(baseUrl: string, credentials: { erp: string; openAi: string }): Workflow {
	return {
		id: WORKFLOW_ID,
		name: 'E2E: a failing ERP tool call',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'aitool-1',
				name: 'Chat',
				type: '@n8n/n8n-nodes-langchain.chatTrigger',
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: CHAT_HOOK,
				parameters: { public: true, options: {} },
			},
			{
				id: 'aitool-2',
				name: 'AI Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 3,
				position: [220, 0],
				parameters: { options: {} },
			},
			{
				id: 'aitool-3',
				name: 'Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.3,
				position: [220, 220],
				credentials: { openAiApi: { id: credentials.openAi, name: 'Scripted model' } },
				parameters: {
					model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' },
					responsesApiEnabled: false,
					options: {},
				},
			},
			{
				id: 'aitool-4',
				name: 'Get article',
				type: 'n8n-nodes-erp.erpTool',
				typeVersion: 1,
				position: [440, 220],
				credentials: { erpApi: { id: credentials.erp, name: SANDBOX_CREDENTIAL.name } },
				parameters: {
					descriptionType: 'manual',
					toolDescription: 'Read one ERP article by its reference.',
					resource: 'article',
					operation: 'get',
					articleId: {
						__rl: true,
						mode: 'reference',
						value: "={{ $fromAI('reference', 'The article reference', 'string') }}",
					},
				},
			},
			{
				id: 'aitool-5',
				name: 'HTTP article',
				type: 'n8n-nodes-base.httpRequestTool',
				typeVersion: 4.2,
				position: [660, 220],
				parameters: {
					toolDescription: 'Read one ERP article by its id.',
					url: `={{ '${baseUrl}/articles/' + $fromAI('id', 'The article id', 'string') }}`,
					sendHeaders: true,
					headerParameters: {
						parameters: [{ name: 'Authorization', value: `Bearer ${SANDBOX_DEMO_KEY}` }],
					},
					options: {},
				},
			},
		],
		connections: {
			Chat: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			Model: { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			'Get article': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			'HTTP article': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		},
	};
}

/**
 * The shape of a failed tool result as the model reads it: the items' JSON keys, when it is a list
 * of items (or one object) each with a non-empty text `error`; undefined for anything else.
 */
function errorShape(content: string): string[][] | undefined {
	let json: ApiJson;
	try {
		json = JSON.parse(content);
	} catch {
		return undefined;
	}
	const items: ApiJson[] = Array.isArray(json) ? json : [json];
	if (items.length === 0) return undefined;
	for (const item of items) {
		if (!item || typeof item !== 'object' || Array.isArray(item)) return undefined;
		if (typeof item.error !== 'string' || item.error === '') return undefined;
	}
	return items.map((item) => Object.keys(item).sort());
}

/** The `error` texts of a failed tool result. */
const errors = (content: string): string[] =>
	([] as ApiJson[]).concat(JSON.parse(content)).map((item: ApiJson) => String(item.error));

(SKIP ? describe.skip : describe)(`a failing ERP tool call in real n8n ${N8N_VERSION}`, () => {
	let e2e: E2e;
	let model: ScriptedModel;
	const files = keepFilesOnFailure(log);
	const track = files.track;

	beforeAll(async () => {
		model = await startScriptedModel();
		e2e = await startE2e({ folderPrefix: 'n8n-nodes-erp-e2e-ai-tool-', log, files, shared: true });
		const create = async (name: string, type: string, data: unknown) =>
			(await e2e.rest.request<{ id: string }>('POST', '/rest/credentials', { name, type, data }))
				.id;
		const erp = await create(
			SANDBOX_CREDENTIAL.name,
			'erpApi',
			demoCredential(e2e.sandbox.baseUrl).data,
		);
		const openAi = await create('Scripted model', 'openAiApi', {
			apiKey: 'sk-scripted-local-model',
			url: model.baseUrl,
		});
		await e2e.rest.request(
			'POST',
			'/rest/workflows',
			toolWorkflow(e2e.sandbox.baseUrl, { erp, openAi }),
		);
		await e2e.rest.activate(WORKFLOW_ID);
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.rest.deactivate(WORKFLOW_ID).catch(() => undefined);
		await e2e?.stop();
		await model?.close();
	}, 80 * MINUTE);

	let runs = 0;
	/** One chat turn in which the model calls `toolName` with `args`: the tool result it was sent. */
	async function turn(toolName: string, args: Record<string, unknown>) {
		model.script = { toolName, args };
		const first = model.requests.length;
		const response = await fetch(`${e2e.n8n!.url}/webhook/${CHAT_HOOK}/chat`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				action: 'sendMessage',
				sessionId: `e2e-tool-error-${Date.now()}`,
				chatInput: `Call ${toolName}`,
			}),
			signal: AbortSignal.timeout(2 * MINUTE),
		});
		const text = await response.text();
		assert.equal(response.status, 200, text);
		const answer = JSON.parse(text);
		runs += 1;
		const [run] = await expectRuns(e2e.rest, WORKFLOW_ID, runs);
		assert.equal(run.status, 'success', JSON.stringify(run));
		const requests = model.requests.slice(first);
		assert.equal(requests.length, 2, 'the question, then the tool result');
		const results = requests[1].messages.filter((m) => m.role === 'tool');
		assert.equal(results.length, 1, JSON.stringify(requests[1].messages));
		const toolResult = String(results[0].content);
		log(`${toolName} ${JSON.stringify(args)} handed the model: ${toolResult.slice(0, 400)}`);
		assert.equal(answer.output, `${FINAL_ANSWER_PREFIX}${toolResult}`, 'the model answered');
		return toolResult;
	}

	it(
		'a failing ERP tool call hands the model its error in the shape n8n’s own tool does (control: a successful call does not match it)',
		track(async () => {
			// n8n's own tool, failing (the sandbox answers 404): the shape to match.
			const own = await turn(HTTP_TOOL, { id: 'art_99999999' });
			const ownShape = errorShape(own);
			assert.ok(ownShape, `n8n's own tool error: ${own}`);

			const failed = await turn(ERP_TOOL, { reference: 'NO-SUCH-REF' });
			assert.deepEqual(errorShape(failed), ownShape, failed);
			assert.match(errors(failed).join(' '), /NO-SUCH-REF/);

			// Control: a call that succeeds hands the article over, which the check refuses.
			const found = await turn(ERP_TOOL, { reference: 'REF-000001' });
			assert.match(found, /REF-000001/);
			assert.equal(errorShape(found), undefined, found);
		}),
		20 * MINUTE,
	);
});
