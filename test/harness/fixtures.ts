/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Test-only node types and a tiny recording HTTP server, used by the harness's own tests
 * (and free to use in other tests that need a node that just makes one authenticated call).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { scanRequest } from './leaks';

import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

/**
 * The description of a test-only node: version 1, one main input and one main output, its
 * default name its display name unless `more.defaults` says otherwise.
 */
export function testNodeDescription(
	name: string,
	displayName: string,
	more: Pick<INodeTypeDescription, 'properties'> & Partial<INodeTypeDescription>,
): INodeTypeDescription {
	return {
		name,
		displayName,
		description: '',
		group: ['transform'],
		version: 1,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		...more,
	};
}

/**
 * `harness.httpCall`: for each item, one `httpRequestWithAuthentication(credentialType, ...)`
 * to `url`; outputs the parsed answer. Honours continueOnFail with error items, as nodes should.
 */
export const HTTP_CALL_NODE_TYPE = 'harness.httpCall';
export const httpCallNode: INodeType = {
	description: testNodeDescription('httpCall', 'HTTP Call (harness)', {
		description: 'Calls a URL with a credential',
		defaults: { name: 'HTTP Call' },
		properties: [
			{ displayName: 'Credential Type', name: 'credentialType', type: 'string', default: '' },
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
		],
	}),
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const credentialType = this.getNodeParameter('credentialType', i) as string;
				const body = (await this.helpers.httpRequestWithAuthentication.call(this, credentialType, {
					url: this.getNodeParameter('url', i) as string,
					method: this.getNodeParameter('method', i) as IHttpRequestMethods,
					json: true,
				})) as IDataObject;
				out.push({ json: body, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			}
		}
		return [out];
	},
};

export interface RecordedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

export interface RecordingServer {
	url: string;
	requests: RecordedRequest[];
	close(): Promise<void>;
}

/** A loopback server that records every request and answers what `reply` says (default 200 `{ok:true}`). */
export async function startRecordingServer(
	reply: (req: RecordedRequest) => { status: number; body?: unknown; headers?: Record<string, string> } = () => ({
		status: 200,
		body: { ok: true },
	}),
): Promise<RecordingServer> {
	const requests: RecordedRequest[] = [];
	let origin = '';
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const recorded = {
				method: req.method ?? 'GET',
				url: req.url ?? '/',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			requests.push(recorded);
			// R4 on the wire: a secret sent here that belongs to another origin fails the file.
			scanRequest('recording server', origin, recorded);
			const answer = reply(recorded);
			res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
			res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	origin = `http://127.0.0.1:${port}`;
	return {
		url: origin,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
