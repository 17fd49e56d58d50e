// API Request, the expert fallback: any endpoint (e.g. payroll slips, GET /paie/bulletins) with the
// node's transport (guards, pacing, retries, error mapping, idempotency keys) and list reading.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { canonicalJson, deriveIdempotencyKey } from '../../../shared/transport';
import type { ValueSource } from '../../../shared/validation';
import { invalid, isBlank, labelOf, toEnum, toText } from '../../../shared/validation';
import { queryParametersProperty, returnAllAndLimit } from '../common.descriptions';
import type { ItemErp, ItemRequest, OperationResult, Prepared } from '../erp';
import { isRecord, source } from '../fields';
import { readQueryParameters, readReturnAll } from '../lists';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
type Method = (typeof METHODS)[number];
const WITH_BODY: readonly Method[] = ['POST', 'PATCH', 'PUT'];
const OUTPUTS = ['items', 'body'] as const;

const [returnAll, limit] = returnAllAndLimit;

export const properties: INodeProperties[] = [
	{
		displayName:
			"Expert fallback: prefer the other resources when one covers your need. This calls any endpoint of the ERP API with the node's safety: rate-limit pacing, retries, idempotency keys on POST, clear errors.",
		name: 'apiRequestNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Method',
		name: 'method',
		type: 'options',
		// In alphabetical order, as the editor lists options.
		options: [...METHODS].sort().map((method) => ({ name: method, value: method })),
		default: 'GET',
		description:
			'GET is resent after a lost answer (server error, dropped connection); writes are not, so nothing is applied twice. POST carries an Idempotency-Key (Request Options).',
	},
	{
		displayName: 'Path',
		name: 'path',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. /paie/bulletins',
		description:
			"The endpoint's path after the credential's Base URL, which already ends in /v1: /paie/bulletins calls the Base URL followed by /paie/bulletins. Full URLs, '..' and query strings are refused.",
	},
	queryParametersProperty('Sent as they are, e.g. periode = 2025-12'),
	{
		displayName: 'Body',
		name: 'body',
		type: 'json',
		default: '',
		placeholder: '{ "facture_id": "fac_00000001", "montant": 1000, "mode": "virement" }',
		description:
			'The JSON object to send, checked before sending. Leave empty to send no body. GET and DELETE send none.',
		displayOptions: { show: { method: [...WITH_BODY] } },
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: [
			{
				name: 'List Items',
				value: 'items',
				description:
					"For a list (data and pagination.next_cursor, or where the credential's Custom API Conventions say), one item per element of data, following the cursor; any other answer as one item",
			},
			{
				name: 'Whole Body',
				value: 'body',
				description: 'The body as one item, exactly as the API answered; a list is not followed',
			},
		],
		default: 'items',
		displayOptions: { show: { method: ['GET'] } },
	},
	{
		...returnAll,
		description:
			'Whether to follow the list to its end or stop at a limit. The first request is sent with your query parameters; the next ones add the cursor and, unless you set it, the page size (up to 100), named as the credential says (cursor and limit by default).',
		displayOptions: { show: { method: ['GET'], output: ['items'] } },
	},
	{
		...limit,
		displayOptions: { show: { method: ['GET'], output: ['items'], returnAll: [false] } },
	},
];

/** An n8n item's json: an object as it is; anything else under `data`. */
const asItem = (value: unknown): IDataObject =>
	isRecord(value) ? value : { data: value as IDataObject };

/**
 * A path after the Base URL (ending in /v1), `/paie/bulletins` or `paie/bulletins`. Refused: a
 * query, spaces, control characters, a leading /v1, and all that could leave the Base URL (`.` and
 * `..` segments also percent-encoded, which URL parsers resolve like plain ones).
 */
function toApiPath(src: ValueSource, value: unknown): string {
	const text = toText(src, value, 'apiPath');
	const refuse = (problem: string, description?: string) => {
		throw invalid(src, problem, description);
	};
	const stay = 'The node only calls addresses under the Base URL of the credential.';
	if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
		refuse(
			'a full URL is not accepted, only the path after the Base URL (e.g. /paie/bulletins)',
			stay,
		);
	}
	if (text.startsWith('//'))
		refuse('a path starting with // is not accepted (it names a host)', stay);
	if (text.includes('\\')) refuse('a backslash is not accepted', stay);
	if (/[?#]/.test(text)) {
		refuse(
			'a query string is not accepted in the path: add each parameter under "Query Parameters"',
		);
	}
	if (
		/\s/.test(text) ||
		[...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)
	) {
		refuse('spaces and control characters are not accepted: percent-encode them (a space is %20)');
	}
	const path = text.startsWith('/') ? text : `/${text}`;
	const segments = path.slice(1).split('/');
	segments.forEach((segment, i) => {
		if (segment === '' && i < segments.length - 1)
			refuse('empty path segments (//) are not accepted');
		let decoded = '';
		try {
			decoded = decodeURIComponent(segment);
		} catch {
			refuse(`"${segment}" is not valid percent-encoding`);
		}
		if (decoded === '.' || decoded === '..') {
			refuse('"." and ".." segments are not accepted, percent-encoded or not', stay);
		}
		if (/[/\\]/.test(decoded))
			refuse('an encoded slash or backslash (%2F, %5C) is not accepted', stay);
	});
	if (path === '/') refuse('give the path of an endpoint, e.g. /paie/bulletins');
	if (/^\/v1(\/|$)/i.test(path)) {
		refuse('the Base URL already ends in /v1: give the path after it, e.g. /paie/bulletins');
	}
	return path;
}

/** The Body parameter: a JSON object (text or object), or undefined when empty. */
function readBody(src: ValueSource, raw: unknown): IDataObject | undefined {
	if (isBlank(raw)) return undefined;
	let body = raw;
	if (typeof raw === 'string') {
		try {
			body = JSON.parse(raw);
		} catch (error) {
			throw invalid(src, `not valid JSON (${(error as Error).message})`);
		}
	}
	if (!isRecord(body)) throw invalid(src, 'expected a JSON object, such as { "montant": 1000 }');
	return body;
}

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const param = (name: string, fallback?: unknown) =>
		this.getNodeParameter(name, itemIndex, fallback);
	const src = (name: string) => source(this, labelOf(properties, name), itemIndex);
	const method = toEnum(src('method'), param('method', 'GET'), METHODS);
	const path = toApiPath(src('path'), param('path'));
	const qs = readQueryParameters(this, itemIndex, param('queryParameters', {}));
	const body = WITH_BODY.includes(method) ? readBody(src('body'), param('body', '')) : undefined;
	const output =
		method === 'GET' ? toEnum(src('output'), param('output', 'items'), OUTPUTS) : 'body';
	const max = output === 'items' ? readReturnAll(this, itemIndex).limit : undefined;
	// Only a read is resent after a lost answer: an unknown endpoint's write may not be idempotent.
	const request: ItemRequest = { method, path, qs, body, resendable: method === 'GET' };
	// The automatic key covers the query too: two POSTs that differ only there are two requests.
	if (method === 'POST' && erp.settings.idempotencyKey === 'auto' && Object.keys(qs).length > 0) {
		request.idempotencyKey = deriveIdempotencyKey({
			workflowId: String(this.getWorkflow().id ?? ''),
			nodeName: this.getNode().name,
			method,
			path: `${path}?${canonicalJson(qs)}`,
			body: body ?? {},
		});
	}

	return async (): Promise<OperationResult> => {
		const answer = await erp.response(request);
		if (answer.statusCode === 204) return { success: true };
		if (output === 'body') return asItem(answer.body);
		if (Array.isArray(answer.body)) return answer.body.map(asItem);
		// The list envelope (docs/api-contract.md, or the credential's Custom API Conventions).
		const list = await erp.listAnswer(answer.body);
		if (list === undefined) return asItem(answer.body);
		const items = list.data.map(asItem);
		if (max !== undefined && items.length >= max) return items.slice(0, max);
		const next = list.nextCursor;
		if (next === undefined) return items;
		// The next pages: same query, the cursor, and any page size given under Query Parameters.
		const pageSize = Number(qs[(await erp.lists()).pageSizeParam]) || undefined;
		const rest = max === undefined ? undefined : max - items.length;
		for await (const page of erp.paginate(path, qs, { cursor: next, pageSize, max: rest })) {
			for (const element of page) items.push(asItem(element));
		}
		return items;
	};
}
