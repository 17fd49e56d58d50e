/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- the harness plays n8n's server, not a node */
/**
 * The webhook side of a trigger node, as n8n runs it in production:
 * - activation (packages/cli ActiveWorkflowManager + WebhookService.createWebhookIfNotExists):
 *   `webhookMethods.default.checkExists`, then `create` if it returned false, in n8n-core's
 *   HookContext (mode `trigger`, activation `activate`); static data saved afterwards;
 * - a delivery (LiveWebhooks + webhook-helpers executeWebhook): the body is read raw
 *   (`req.rawBody`, a Buffer, unset until `req.readRawBody()`) and parsed as n8n's `parseBody`
 *   does (a node of version 2 or more: only the content types n8n parses), the node's `webhook()` runs in
 *   n8n-core's WebhookContext (mode `webhook`), the response is chosen as n8n chooses it, static
 *   data is saved, and when the node returned `workflowData` the workflow runs with
 *   WorkflowExecute;
 * - deactivation: `webhookMethods.default.delete`, static data saved.
 * Static data is loaded from the store for each call and saved when changed, as n8n does with
 * its database. Only the `onReceived` response mode (the default, and what triggers use) is
 * supported.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { parse as parseQueryString } from 'node:querystring';

import { HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IVersionedNodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WebhookType,
} from 'n8n-workflow';
import { UserError, Workflow, createRunExecutionData, deepCopy, jsonParse } from 'n8n-workflow';

import {
	createAdditionalData,
	loadStaticData,
	nextExecutionId,
	saveStaticData,
	startExecution,
} from './additional-data';
import { credentialRef } from './credentials';
import type { TestCredentials } from './credentials';
import { registerStaticDataSecrets, scanError, scanOutput } from './leaks';
import { scanRunForLeaks } from './run-workflow';
import { HarnessNodeTypes } from './runtime';

const coreRequire = createRequire(require.resolve('n8n-core'));
const { parseIncomingMessage } = coreRequire('@n8n/backend-network') as {
	parseIncomingMessage: (message: { headers: http.IncomingHttpHeaders }) => void;
};

export const ERP_TRIGGER_TYPE = 'n8n-nodes-erp.erpTrigger';
const WEBHOOK_NAME: WebhookType = 'default';

export interface TriggerSpec {
	/** Full node type name (default `n8n-nodes-erp.erpTrigger`). */
	type?: string;
	parameters: INodeParameters;
	credentials: TestCredentials;
	/** The node's static data before activation (what `getWorkflowStaticData('node')` returns). */
	staticData?: IDataObject;
	/** What `getNodeWebhookUrl('default')` returns. Default: n8n's URL on a loopback server started by `listen: true`, else n8n's URL on http://127.0.0.1:5678. */
	webhookUrl?: string;
	/** Start the loopback listener before activation, so the registered URL is reachable. */
	listen?: boolean;
	workflowId?: string;
	typeVersion?: number;
	/** Test-only node types, keyed by full type name. */
	extraNodeTypes?: Record<string, INodeType | IVersionedNodeType>;
}

export interface DeliveryRequest {
	method?: string;
	headers: Record<string, string | string[]>;
	body: Buffer | string;
	query?: IDataObject;
}

export interface DeliveryResult {
	/** The HTTP status n8n would answer. */
	status: number;
	/** The answer's body: parsed JSON when it is JSON, else the text (undefined when empty). */
	body: unknown;
	headers: Record<string, string | string[]>;
	/** The trigger's output items in the run it started; undefined when it started no run. */
	items?: INodeExecutionData[];
	/** The run the delivery started, if any. */
	run?: IRun;
	/** The error the node's `webhook()` threw, if any (n8n answers 500 then). */
	error?: Error;
}

export interface TriggerListener {
	/** The webhook URL on this listener. */
	url: string;
	/** The items of every run a request through this listener started, in order. */
	runs: INodeExecutionData[][];
	/** Every answer given through this listener, in order. */
	deliveries: DeliveryResult[];
	close(): Promise<void>;
}

export interface TriggerHandle {
	/** The node's static data as last saved (a copy, re-read at each access). */
	readonly staticData: IDataObject;
	/** What `getNodeWebhookUrl('default')` returns to the node. */
	readonly webhookUrl: string;
	readonly workflowId: string;
	readonly nodeName: string;
	deliver(req: DeliveryRequest): Promise<DeliveryResult>;
	listen(): Promise<TriggerListener>;
	deactivate(): Promise<void>;
	checkExists(): Promise<boolean>;
}

/* ------------------------------------------------------------- request/response */

type WebhookRequest = IDataObject & {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	query: IDataObject;
	params: IDataObject;
	body?: unknown;
	/** As in n8n: unset until `readRawBody()` (n8n's body parsing calls it; from version 2 of a webhook node, only for the content types it parses). */
	rawBody?: Buffer;
	contentType?: string;
	encoding?: BufferEncoding;
	readRawBody(): Promise<void>;
};

/** The part of Express's Response that nodes use (`status`, `setHeader`, `json`, `send`, `end`). */
class HarnessResponse {
	statusCode = 200;

	headersSent = false;

	writableEnded = false;

	readonly headers: Record<string, string | string[]> = {};

	private chunks: Buffer[] = [];

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	sendStatus(code: number): this {
		return this.status(code).send(http.STATUS_CODES[code] ?? String(code));
	}

	setHeader(name: string, value: string | number | string[]): this {
		this.headers[name.toLowerCase()] = Array.isArray(value) ? value : String(value);
		return this;
	}

	header(name: string | Record<string, string>, value?: string): this {
		if (typeof name === 'object') {
			for (const [k, v] of Object.entries(name)) this.setHeader(k, v);
			return this;
		}
		return this.setHeader(name, value ?? '');
	}

	set(name: string | Record<string, string>, value?: string): this {
		return this.header(name, value);
	}

	getHeader(name: string): string | string[] | undefined {
		return this.headers[name.toLowerCase()];
	}

	type(contentType: string): this {
		return this.setHeader('content-type', contentType);
	}

	writeHead(code: number, headers?: Record<string, string>): this {
		this.status(code);
		if (headers) this.header(headers);
		this.headersSent = true;
		return this;
	}

	write(chunk: Buffer | string): boolean {
		this.headersSent = true;
		this.chunks.push(Buffer.from(chunk));
		return true;
	}

	json(body: unknown): this {
		if (!this.getHeader('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
		return this.end(JSON.stringify(body));
	}

	send(body?: unknown): this {
		if (body === undefined || body === null) return this.end();
		if (Buffer.isBuffer(body) || typeof body === 'string') {
			if (!this.getHeader('content-type')) {
				this.setHeader('content-type', Buffer.isBuffer(body) ? 'application/octet-stream' : 'text/html; charset=utf-8');
			}
			return this.end(body);
		}
		return this.json(body);
	}

	end(chunk?: Buffer | string): this {
		if (this.writableEnded) return this;
		if (chunk !== undefined) this.chunks.push(Buffer.from(chunk));
		this.headersSent = true;
		this.writableEnded = true;
		return this;
	}

	get rawBody(): Buffer {
		return Buffer.concat(this.chunks);
	}

	/** The body, parsed as JSON when the content type says so. */
	parsedBody(): unknown {
		const raw = this.rawBody;
		if (raw.length === 0) return undefined;
		const type = String(this.getHeader('content-type') ?? '');
		const text = raw.toString('utf8');
		if (type.includes('json')) {
			try {
				return JSON.parse(text);
			} catch {
				return text;
			}
		}
		return text;
	}
}

function buildRequest(req: DeliveryRequest, url: string): WebhookRequest {
	const headers: http.IncomingHttpHeaders = {};
	for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
	const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
	if (headers['content-length'] === undefined) headers['content-length'] = String(rawBody.length);
	const request: WebhookRequest = {
		method: (req.method ?? 'POST').toUpperCase(),
		url,
		headers,
		query: req.query ?? {},
		params: {},
		readRawBody: async () => {
			request.rawBody = rawBody;
		},
	};
	// Sets `contentType` (mime type without parameters) and `encoding` as n8n's raw body reader does.
	parseIncomingMessage(request);
	return request;
}

class ResponseError extends Error {
	constructor(
		message: string,
		readonly httpStatusCode: number,
		readonly hint?: string,
	) {
		super(message);
	}
}

/** n8n's `parseBody` (packages/cli middlewares/body-parser.ts), for the content types it parses. */
async function parseBody(req: WebhookRequest): Promise<void> {
	await req.readRawBody();
	const { contentType } = req;
	const rawBody = req.rawBody ?? Buffer.alloc(0);
	const encoding = (req.encoding ?? 'utf-8') as BufferEncoding;
	if (!rawBody.length) return;
	try {
		if (contentType === 'application/json') {
			req.body = jsonParse(rawBody.toString(encoding));
		} else if (contentType === 'application/x-www-form-urlencoded') {
			req.body = parseQueryString(rawBody.toString(encoding), undefined, undefined, { maxKeys: 1000 });
		} else if (contentType === 'text/plain') {
			req.body = rawBody.toString(encoding);
		} else if (contentType?.endsWith('/xml') || contentType?.endsWith('+xml')) {
			throw new UserError('XML bodies are not supported by the test harness');
		}
	} catch (error) {
		// n8n answers 422 here, before the node runs (UnprocessableRequestError).
		throw new ResponseError('Failed to parse request body', 422, (error as Error).message);
	}
}

function isParsableContentType(contentType: string | undefined): boolean {
	if (!contentType) return false;
	return (
		contentType.startsWith('application/json') ||
		contentType.startsWith('text/plain') ||
		contentType.startsWith('application/x-www-form-urlencoded') ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml')
	);
}

/** n8n's error answer (ResponseHelper.sendErrorResponse). */
function respondWithError(res: HarnessResponse, error: Error & { httpStatusCode?: number; hint?: string }): void {
	const status = error.httpStatusCode ?? 500;
	res.status(status).json({
		code: error.httpStatusCode ?? 0,
		message: error.message,
		...(error.hint ? { hint: error.hint } : {}),
	});
}

/* ---------------------------------------------------------------------- trigger */

export async function activateTrigger(spec: TriggerSpec): Promise<TriggerHandle> {
	const type = spec.type ?? ERP_TRIGGER_TYPE;
	const workflowId = spec.workflowId ?? `harness-trigger-${nextExecutionId()}`;
	const nodeTypes = new HarnessNodeTypes(spec.extraNodeTypes);
	const nodeType = nodeTypes.getByNameAndVersion(type, spec.typeVersion);
	const description = (nodeType.description.webhooks ?? []).find((w) => w.name === WEBHOOK_NAME);
	if (!description || !nodeType.webhook) {
		throw new UserError(`Node type ${type} has no "${WEBHOOK_NAME}" webhook`);
	}
	const version = spec.typeVersion ?? nodeType.description.version;
	const nodeName = nodeType.description.defaults.name ?? 'Trigger';
	const credentials: INode['credentials'] = {};
	for (const { name } of nodeType.description.credentials ?? []) {
		if (spec.credentials.has(name)) credentials[name] = credentialRef(name);
	}
	const nodeTemplate: INode = {
		id: 'harness-trigger-node',
		name: nodeName,
		type,
		typeVersion: Array.isArray(version) ? Math.max(...version) : version,
		position: [0, 0],
		parameters: deepCopy(spec.parameters),
		credentials,
		webhookId: `${workflowId}-webhook`,
	};

	if (spec.staticData) {
		saveStaticData(workflowId, { ...loadStaticData(workflowId), [`node:${nodeName}`]: deepCopy(spec.staticData) });
	}

	let listener: (TriggerListener & { origin: string }) | undefined;
	if (spec.listen) listener = await startListener(() => handle);
	const baseUrl = listener ? `${listener.origin}/webhook` : undefined;

	/** A fresh Workflow with the saved static data, as n8n loads the workflow for each call. */
	const loadWorkflow = () => {
		const node = deepCopy(nodeTemplate);
		const workflow = new Workflow({
			id: workflowId,
			name: `Harness trigger workflow ${workflowId}`,
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: loadStaticData(workflowId),
			settings: { executionOrder: 'v1' },
		});
		return { workflow, node: workflow.getNode(nodeName) as INode };
	};
	const additionalDataFor = (executionId?: string): IWorkflowExecuteAdditionalData => {
		const data = createAdditionalData({ credentials: spec.credentials, workflowId, executionId });
		if (baseUrl) data.webhookBaseUrl = baseUrl;
		return data;
	};
	const webhookDataFor = (
		node: INode,
		additionalData: IWorkflowExecuteAdditionalData,
		webhookDescription: IWebhookDescription,
	): IWebhookData => ({
		httpMethod: webhookDescription.httpMethod as IHttpRequestMethods,
		node: node.name,
		path: String(webhookDescription.path),
		webhookDescription,
		workflowId,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
	});
	const withUrl = <T extends { getNodeWebhookUrl(name: WebhookType): string | undefined }>(context: T): T => {
		if (spec.webhookUrl !== undefined) {
			const original = context.getNodeWebhookUrl.bind(context);
			context.getNodeWebhookUrl = (name) => (name === WEBHOOK_NAME ? spec.webhookUrl : original(name));
		}
		return context;
	};
	const saveIfChanged = (workflow: Workflow) => {
		if (workflow.staticData.__dataChanged === true) saveStaticData(workflowId, workflow.staticData);
	};

	const runHookMethod = async (method: 'checkExists' | 'create' | 'delete'): Promise<boolean | undefined> => {
		const { workflow, node } = loadWorkflow();
		const fn = nodeType.webhookMethods?.[WEBHOOK_NAME]?.[method];
		if (fn === undefined) return undefined;
		const additionalData = additionalDataFor();
		const context = withUrl(
			new HookContext(workflow, node, additionalData, 'trigger', 'activate', webhookDataFor(node, additionalData, description)),
		);
		try {
			return await fn.call(context);
		} catch (error) {
			// What the user sees when activation fails: scanned for secrets (leaks.ts).
			registerStaticDataSecrets(workflowId, workflow.staticData);
			scanError(`trigger ${workflowId} > ${method}`, error);
			throw error;
		} finally {
			saveIfChanged(workflow);
			registerStaticDataSecrets(workflowId, workflow.staticData);
		}
	};

	const webhookUrl = (() => {
		if (spec.webhookUrl !== undefined) return spec.webhookUrl;
		const { workflow, node } = loadWorkflow();
		const additionalData = additionalDataFor();
		const context = new HookContext(workflow, node, additionalData, 'trigger', 'activate');
		return context.getNodeWebhookUrl(WEBHOOK_NAME) ?? '';
	})();

	/** A delivery, with its answer, error and run scanned for secrets (leaks.ts). */
	const deliver = async (request: DeliveryRequest): Promise<DeliveryResult> => {
		const result = await handleDelivery(request);
		const where = `trigger ${workflowId} > delivery`;
		registerStaticDataSecrets(workflowId, loadStaticData(workflowId));
		scanOutput(`${where} > answer`, { status: result.status, headers: result.headers, body: result.body });
		if (result.error) scanError(`${where} > webhook error`, result.error);
		if (result.run) scanRunForLeaks(`${where} > run`, result.run, workflowId);
		return result;
	};

	const handleDelivery = async (request: DeliveryRequest): Promise<DeliveryResult> => {
		const { workflow, node } = loadWorkflow();
		const additionalData = additionalDataFor();
		const req = buildRequest(request, new URL(webhookUrl, 'http://127.0.0.1').pathname);
		const res = new HarnessResponse();
		const answer = (extra: Partial<DeliveryResult> = {}): DeliveryResult => ({
			status: res.statusCode,
			body: res.parsedBody(),
			headers: { ...res.headers },
			...extra,
		});
		additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];

		if (req.method !== String(description.httpMethod).toUpperCase()) {
			respondWithError(
				res,
				new ResponseError(`The requested webhook "${req.method} ${req.url}" is not registered.`, 404),
			);
			return answer();
		}
		const responseMode = String(description.responseMode ?? 'onReceived');
		if (responseMode !== 'onReceived') {
			throw new UserError(`Response mode "${responseMode}" is not supported by the test harness`);
		}
		const responseCode = Number(description.responseCode ?? 200);

		try {
			if (!(node.typeVersion > 1 && !isParsableContentType(req.contentType))) await parseBody(req);
		} catch (error) {
			respondWithError(res, error as ResponseError);
			return answer();
		}

		let result: IWebhookResponseData;
		try {
			const context = withUrl(
				new WebhookContext(workflow, node, additionalData, 'webhook', webhookDataFor(node, additionalData, description), [], null),
			);
			result = await nodeType.webhook!.call(context);
		} catch (error) {
			// n8n hides the cause behind a generic message (and does not save static data then).
			if (!res.writableEnded) {
				respondWithError(res, new Error('Workflow Webhook Error: Workflow could not be started!'));
			}
			return answer({ error: error as Error });
		}
		// n8n saves static data when the response is decided (LiveWebhooks' response callback).
		saveIfChanged(workflow);

		if (result.noWebhookResponse !== true && !res.writableEnded) {
			let data: unknown;
			if (result.webhookResponse !== undefined) data = result.webhookResponse;
			else data = result.workflowData === undefined ? { message: 'Webhook call received' } : { message: 'Workflow was started' };
			res.status(responseCode);
			if (typeof data === 'string') res.send(data);
			else res.json(data);
		}
		if (result.workflowData === undefined) return answer();

		const run = await runFromTrigger(workflow, node, result.workflowData);
		const items = run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? [];
		return answer({ items, run });
	};

	const runFromTrigger = async (workflow: Workflow, node: INode, workflowData: INodeExecutionData[][]) => {
		const { additionalData } = startExecution({
			mode: 'webhook',
			credentials: spec.credentials,
			workflowId,
			nodes: [node],
			connections: {},
		});
		const runExecutionData = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node, data: { main: workflowData }, source: null }] },
		});
		return await new WorkflowExecute(additionalData, 'webhook', runExecutionData).processRunExecutionData(workflow);
	};

	const handle: TriggerHandle = {
		get staticData() {
			return (loadStaticData(workflowId)[`node:${nodeName}`] as IDataObject | undefined) ?? {};
		},
		webhookUrl,
		workflowId,
		nodeName,
		deliver,
		async listen() {
			listener ??= await startListener(() => handle);
			const { origin, runs, deliveries, close } = listener;
			return { url: origin + new URL(webhookUrl, 'http://127.0.0.1').pathname, runs, deliveries, close };
		},
		async deactivate() {
			await runHookMethod('delete');
			await listener?.close();
		},
		async checkExists() {
			return (await runHookMethod('checkExists')) === true;
		},
	};

	// Activation, as n8n's WebhookService.createWebhookIfNotExists; on failure n8n clears the
	// webhooks it was adding (running `delete`) and reports the error.
	try {
		const exists = await runHookMethod('checkExists');
		if (!exists) await runHookMethod('create');
	} catch (error) {
		await runHookMethod('delete').catch(() => undefined);
		await listener?.close();
		throw error;
	}
	return handle;
}

async function startListener(getHandle: () => TriggerHandle): Promise<TriggerListener & { origin: string }> {
	const runs: INodeExecutionData[][] = [];
	const deliveries: DeliveryResult[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const handle = getHandle();
			const expectedPath = new URL(handle.webhookUrl, 'http://127.0.0.1').pathname;
			const respond = (result: DeliveryResult) => {
				deliveries.push(result);
				if (result.items) runs.push(result.items);
				const body =
					result.body === undefined ? '' : typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
				res.writeHead(result.status, result.headers as http.OutgoingHttpHeaders);
				res.end(body);
			};
			if (url.pathname !== expectedPath) {
				respond({
					status: 404,
					headers: { 'content-type': 'application/json; charset=utf-8' },
					body: { code: 404, message: `The requested webhook "${req.method} ${url.pathname}" is not registered.` },
				});
				return;
			}
			const headers: Record<string, string | string[]> = {};
			for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
			handle
				.deliver({
					method: req.method,
					headers,
					body: Buffer.concat(chunks),
					query: Object.fromEntries(url.searchParams),
				})
				.then(respond, (error: Error) =>
					respond({ status: 500, headers: {}, body: { code: 0, message: error.message }, error }),
				);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	let closing: Promise<void> | undefined;
	return {
		origin,
		url: origin,
		runs,
		deliveries,
		close() {
			closing ??= new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			});
			return closing;
		},
	};
}
