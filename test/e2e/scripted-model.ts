/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a local server for the e2e tests, not a node */
/**
 * A scripted OpenAI-compatible chat model on 127.0.0.1, for the AI example's end-to-end test:
 * `POST /v1/chat/completions` as n8n's OpenAI Chat Model node calls it with *Use Responses API*
 * off (LangChain's ChatOpenAI, non-streaming: `stream: false`, a JSON answer).
 *
 * The script is one tool call: while the conversation holds no tool result, the model answers
 * with a call of `toolName` with `args`; once the agent sends the tool's result back (a `tool`
 * message), it answers with a final text that quotes that result. Every request is kept.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The parts of a Chat Completions request the test reads. */
export type ChatRequest = {
	model: string;
	stream?: boolean;
	messages: Array<{
		role: string;
		content: string | null;
		tool_call_id?: string;
		tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
	}>;
	tools?: Array<{
		type: string;
		function: { name: string; description?: string; parameters?: unknown };
	}>;
};

export type ScriptedModel = {
	/** The OpenAI credential's Base URL: `http://127.0.0.1:<port>/v1`. */
	baseUrl: string;
	/** Every chat completion request received, in order. */
	requests: ChatRequest[];
	/** Requests to any other route (method and path). */
	otherRoutes: string[];
	/** What the next tool call asks: the tool's name and its arguments. */
	script: { toolName: string; args: Record<string, unknown> };
	close(): Promise<void>;
};

/** The prefix of the final answer; the tool's result follows it verbatim. */
export const FINAL_ANSWER_PREFIX = 'Here is what the ERP answered: ';

function completion(model: string, message: Record<string, unknown>, finishReason: string) {
	return {
		id: `chatcmpl-scripted-${Date.now()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [
			{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason },
		],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The model's answer to one request, by the script. */
function answer(request: ChatRequest, script: ScriptedModel['script'], callNumber: number) {
	const results = request.messages.filter((m) => m.role === 'tool');
	if (results.length === 0) {
		return completion(
			request.model,
			{
				content: null,
				tool_calls: [
					{
						id: `call_scripted_${callNumber}`,
						type: 'function',
						function: { name: script.toolName, arguments: JSON.stringify(script.args) },
					},
				],
			},
			'tool_calls',
		);
	}
	const last = results[results.length - 1];
	return completion(request.model, { content: `${FINAL_ANSWER_PREFIX}${last.content}` }, 'stop');
}

export async function startScriptedModel(): Promise<ScriptedModel> {
	const model: Omit<ScriptedModel, 'baseUrl' | 'close'> = {
		requests: [],
		otherRoutes: [],
		script: { toolName: '', args: {} },
	};
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			const send = (status: number, json: unknown) =>
				res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
			if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
				model.otherRoutes.push(`${req.method} ${req.url}`);
				send(404, {
					error: { message: `No route ${req.method} ${req.url}`, type: 'invalid_request_error' },
				});
				return;
			}
			const request = JSON.parse(body) as ChatRequest;
			model.requests.push(request);
			// This script answers in one JSON body only; a streaming request would need SSE.
			if (request.stream === true) {
				send(400, {
					error: { message: 'The scripted model does not stream', type: 'invalid_request_error' },
				});
				return;
			}
			send(200, answer(request, model.script, model.requests.length));
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	const { port } = server.address() as AddressInfo;
	return Object.assign(model, {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	});
}
