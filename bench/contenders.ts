// The two ways of reading every article: the ERP node (Article → Get Many, Return All) run by
// n8n-core's engine through the test harness, and a bare undici loop making the same requests
// (GET /articles?limit=100&cursor=..., same key, same Accept header) and keeping the same items.
import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { DEMO_KEYS } from '../sandbox';
import { TestCredentials, runWorkflow } from '../test/harness';

export const ERP_NODE_TYPE = 'n8n-nodes-erp.erp';
export const PAGE_SIZE = 100;

export type Reader = (baseUrl: string, apiKey?: string, limit?: number) => Promise<ReadResult>;

export interface ReadResult {
	items: IDataObject[];
	/**
	 * The ERP node's own run as n8n-core timed it (runData startTime, epoch ms, and executionTime):
	 * without the workflow set-up and the harness's checks after the run. Node contender only.
	 */
	nodeRun?: { startTime: number; executionTime: number };
}

/**
 * Every article (or the first `limit`) through the ERP node in a one-node workflow; fails loudly
 * if the run failed.
 */
export async function readAllWithNode(
	baseUrl: string,
	apiKey: string = DEMO_KEYS.full,
	limit?: number,
): Promise<ReadResult> {
	const credentials = new TestCredentials({ erpApi: { apiKey, environment: 'sandbox', baseUrl } });
	const parameters =
		limit === undefined
			? { resource: 'article', operation: 'getAll', returnAll: true }
			: { resource: 'article', operation: 'getAll', returnAll: false, limit };
	const result = await runWorkflow({
		nodes: [{ name: 'ERP', type: ERP_NODE_TYPE, parameters }],
		credentials,
		workflowId: 'bench',
	});
	if (!result.success) throw new Error(`the ERP node run failed: ${result.error?.message ?? 'unknown error'}`);
	const task = result.runData.ERP[0];
	return { items: result.output('ERP'), nodeRun: { startTime: task.startTime, executionTime: task.executionTime } };
}

interface ListPage {
	data: IDataObject[];
	pagination?: { next_cursor?: string | null };
}

/**
 * Every article (or the first page of `limit`) with a plain loop over undici's request(): no
 * engine, no retries, no pacing.
 */
export async function readAllWithUndici(
	baseUrl: string,
	apiKey: string = DEMO_KEYS.full,
	limit?: number,
	freshConnections = false,
): Promise<ReadResult> {
	const items: IDataObject[] = [];
	let cursor: string | undefined;
	for (;;) {
		const query = new URLSearchParams({ limit: String(limit ?? PAGE_SIZE) });
		if (cursor !== undefined) query.set('cursor', cursor);
		const { statusCode, body } = await request(`${baseUrl}/articles?${query.toString()}`, {
			headers: { accept: 'application/json', authorization: `Bearer ${apiKey}` },
			// A new connection per request, as n8n-core's request helpers open one (a new agent each time).
			reset: freshConnections,
		});
		const page = (await body.json()) as ListPage;
		if (statusCode !== 200) throw new Error(`GET /articles answered ${statusCode}`);
		for (const item of page.data) items.push(item);
		const next = page.pagination?.next_cursor;
		if (limit !== undefined || typeof next !== 'string' || next === '') return { items };
		cursor = next;
	}
}

/** The same loop opening a new connection for every request, as n8n's request helpers do. */
export const readAllWithUndiciFresh: Reader = (baseUrl, apiKey, limit) => readAllWithUndici(baseUrl, apiKey, limit, true);

export const readers: Record<string, Reader> = {
	node: readAllWithNode,
	bare: readAllWithUndici,
	'bare-fresh': readAllWithUndiciFresh,
};
