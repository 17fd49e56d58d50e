/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// ERP node, resource API Request (issue 17): any endpoint through the node's transport, run as
// real workflows against the sandbox and checked in the sandbox's own state and counters.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEMO_KEYS } from '../../sandbox';
import { httpStatusError } from '../../nodes/shared/transport/errors';
import { assertRefusedBeforeRequest, useErpTestEnv } from './setup';

const env = useErpTestEnv();
beforeEach(async () => {
	await env.reset();
	env.credentials.set('erpApi', {
		apiKey: DEMO_KEYS.full,
		environment: 'sandbox',
		baseUrl: env.sandbox.baseUrl,
	});
});

const send = (parameters: INodeParameters): INodeParameters => ({
	resource: 'apiRequest',
	operation: 'send',
	...parameters,
});

const query = (pairs: Record<string, string>) => ({
	parameter: Object.entries(pairs).map(([name, value]) => ({ name, value })),
});

async function control(path: string, body: unknown): Promise<IDataObject> {
	const response = await fetch(`${env.sandbox.url}/_sandbox/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const json = (await response.json()) as IDataObject;
	assert.ok(response.ok, JSON.stringify(json));
	return json;
}

async function stats(): Promise<IDataObject & { byPath: Record<string, number> }> {
	return (await (await fetch(`${env.sandbox.url}/_sandbox/stats`)).json()) as IDataObject & {
		byPath: Record<string, number>;
	};
}

/** Every payroll slip, read directly (limit 100: one page). */
async function allSlips(): Promise<IDataObject[]> {
	const { status, body } = await env.api('GET', '/paie/bulletins?limit=100');
	assert.equal(status, 200);
	assert.equal((body.pagination as IDataObject).next_cursor, null);
	return body.data as IDataObject[];
}

describe('reads', () => {
	test('a paginated GET returns the exact set of slips under injected 429s and resets', async () => {
		const expected = await allSlips();
		assert.equal(expected.length, 24);
		await control('faults', {
			seed: 7,
			faults: [
				// At most 4 faults in all: fewer than the transport's 6 attempts of one request.
				{ kind: 'reset', probability: 0.4, count: 2, paths: ['/paie/bulletins'] },
				{ kind: 'status', status: 429, probability: 0.5, count: 2, paths: ['/paie/bulletins'] },
			],
		});
		const before = await stats();
		const result = await env.run(
			send({
				method: 'GET',
				path: '/paie/bulletins',
				queryParameters: query({ limit: '5' }),
				returnAll: true,
			}),
		);
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(result.output('ERP'), expected);
		const after = await stats();
		const faults = after.faults as Record<string, number>;
		assert.ok(faults.reset > 0 && faults.status > 0, JSON.stringify(faults));
		// 5 pages of 5, plus one resent request per fault.
		const requests =
			after.byPath['GET /v1/paie/bulletins'] - (before.byPath['GET /v1/paie/bulletins'] ?? 0);
		assert.equal(requests, 5 + faults.reset + faults.status);
	});

	test('Limit stops the list; query parameters filter it; without a limit query the first page is the API default', async () => {
		const result = await env.run(
			send({ path: 'paie/bulletins', queryParameters: query({ periode: '2025-12' }), limit: 3 }),
		);
		assert.equal(result.success, true, result.error?.message);
		const december = (await allSlips()).filter((s) => s.periode === '2025-12');
		assert.deepEqual(result.output('ERP'), december.slice(0, 3));
		assert.equal((await stats()).byPath['GET /v1/paie/bulletins'], 2); // ours, then allSlips

		// Limit 22 over the API's default page of 20: one more page, of 2.
		await env.reset();
		const more = await env.run(send({ path: '/paie/bulletins', limit: 22 }));
		assert.equal(more.success, true, more.error?.message);
		assert.deepEqual(more.output('ERP'), (await allSlips()).slice(0, 22));
	});

	test('a single resource is one item; Whole Body keeps the envelope as one item', async () => {
		const { body: article } = await env.api('GET', '/articles/art_00000042');
		const one = await env.run(send({ path: '/articles/art_00000042' }));
		assert.equal(one.success, true, one.error?.message);
		assert.deepEqual(one.output('ERP'), [article]);

		const whole = await env.run(
			send({ path: '/paie/bulletins', output: 'body', queryParameters: query({ limit: '2' }) }),
		);
		assert.equal(whole.success, true, whole.error?.message);
		const [item] = whole.output('ERP');
		assert.equal((item.data as IDataObject[]).length, 2);
		assert.deepEqual(item.pagination, { total: 24, next_cursor: 'bul_00000002' });
	});

	test('a missing scope gives the 403 naming the scope', async () => {
		const { key } = await control('keys', { scopes: ['articles:read'] });
		env.credentials.set('erpApi', {
			apiKey: String(key),
			environment: 'sandbox',
			baseUrl: env.sandbox.baseUrl,
		});
		for (const [path, scope] of [
			['/paie/bulletins', 'paie:read'],
			['/audit/journal', 'audit:read'],
		]) {
			const result = await env.run(send({ path }));
			assert.equal(result.success, false);
			const error = result.error as Error & { httpCode?: string };
			assert.equal(error.name, 'NodeApiError');
			assert.equal(error.httpCode, '403');
			assert.match(error.message, new RegExp(`needs the scope ${scope}`));
		}
	});

	test("an endpoint the contract does not list: the 403 message is the API's, which names the scope", () => {
		const node = {
			id: 'n',
			name: 'ERP',
			type: 'erp',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		};
		const body = {
			error: { code: 'insufficient_scope', message: 'This request needs the scope compta:write' },
		};
		const error = httpStatusError(node, 403, body, {
			method: 'POST',
			path: '/comptabilite/ecritures',
			authentication: 'apiKey',
		});
		assert.equal(
			error.message,
			'The credential lacks the permission for this request: This request needs the scope compta:write',
		);
	});
});

describe('writes', () => {
	async function openInvoice(): Promise<IDataObject> {
		const { body } = await env.api('GET', '/factures?statut=emise&limit=1');
		return (body.data as IDataObject[])[0];
	}

	const settle = (invoiceId: string, requestOptions: INodeParameters = {}) =>
		send({
			method: 'POST',
			path: '/reglements',
			body: JSON.stringify({ facture_id: invoiceId, montant: 100, mode: 'virement' }),
			requestOptions,
		});

	async function settleWithLostAnswer(requestOptions: INodeParameters, workflowId?: string) {
		const invoice = await openInvoice();
		await control('faults', {
			faults: [
				{
					kind: 'failAfterCommit',
					status: 500,
					count: 1,
					methods: ['POST'],
					paths: ['/reglements'],
				},
			],
		});
		const before = await stats();
		const result = await env.runNodes(
			[
				{
					name: 'ERP',
					parameters: settle(String(invoice.id), requestOptions),
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 1,
				},
			],
			{ workflowId },
		);
		const after = await stats();
		return {
			result,
			created: Number(after.settlements) - Number(before.settlements),
			posts: after.byPath['POST /v1/reglements'] - (before.byPath['POST /v1/reglements'] ?? 0),
			invoice,
		};
	}

	test('a POST whose answer is lost after commit is not sent again by Retry On Fail: one settlement, the execution says why', async () => {
		for (const idempotency of ['auto', 'off']) {
			const { result, created, posts } = await settleWithLostAnswer({ idempotency });
			assert.equal(result.success, false, `${idempotency}: the execution fails`);
			assert.match(
				String((result.error as Error & { description?: string }).description),
				/Retry On Fail did not send it again: the ERP may have applied it/,
			);
			assert.equal(posts, 1, `${idempotency}: sent once (not by the transport, not by the retry)`);
			assert.equal(created, 1, `${idempotency}: one settlement`);
		}
	});

	test('control: a manual re-run sends it again, and its automatic key makes the ERP answer the first settlement', async () => {
		const workflowId = 'api-request-settle-rerun';
		const { result, created, posts, invoice } = await settleWithLostAnswer({}, workflowId);
		assert.equal(result.success, false);
		const again = await env.runNodes(
			[{ name: 'ERP', parameters: settle(String(invoice.id)), retryOnFail: true, maxTries: 2 }],
			{ workflowId },
		);
		assert.equal(again.success, true, again.error?.message);
		assert.equal(posts, 1);
		const { body: after } = await env.api('GET', `/factures/${String(invoice.id)}`);
		assert.equal(after.reste_a_payer, Number(invoice.reste_a_payer) - 100, 'paid once');
		assert.equal(created, 1);
		assert.equal(again.output('ERP')[0].facture_id, invoice.id);
	});

	test('a 204 answers { success: true }: DELETE of an article', async () => {
		const result = await env.run(send({ method: 'DELETE', path: '/articles/art_00000200' }));
		assert.equal(result.success, true, result.error?.message);
		assert.deepEqual(result.output('ERP'), [{ success: true }]);
		assert.equal((await env.api('GET', '/articles/art_00000200')).status, 404);
	});

	test('a DELETE whose answer is lost is not resent (the second would answer 404)', async () => {
		await control('faults', {
			faults: [{ kind: 'failAfterCommit', status: 503, count: 1, methods: ['DELETE'] }],
		});
		const result = await env.run(send({ method: 'DELETE', path: '/articles/art_00000201' }));
		assert.equal(result.success, false);
		const error = result.error as Error & { httpCode?: string; description?: string };
		assert.equal(error.httpCode, '503');
		assert.match(String(error.description), /may have been applied and was not resent/);
		assert.equal((await stats()).byPath['DELETE /v1/articles/:id'], 1);
		assert.equal((await env.api('GET', '/articles/art_00000201')).status, 404);

		// Control: the same fault on a GET is resent, and the read succeeds.
		await control('faults', {
			faults: [{ kind: 'failAfterCommit', status: 503, count: 1, methods: ['GET'] }],
		});
		const read = await env.run(send({ path: '/articles/art_00000202' }));
		assert.equal(read.success, true, read.error?.message);
		assert.equal((await stats()).byPath['GET /v1/articles/:id'], 3); // 2 by the node, 1 above
	});

	test('PATCH and PUT send the checked body; POST with a query gets a key of its own', async () => {
		const patched = await env.run(
			send({
				method: 'PATCH',
				path: '/articles/art_00000203',
				body: { designation: 'Renamed by API Request' },
			}),
		);
		assert.equal(patched.success, true, patched.error?.message);
		assert.equal(patched.output('ERP')[0].designation, 'Renamed by API Request');
		const put = await env.run(send({ method: 'PUT', path: '/articles/art_00000203', body: '{}' }));
		assert.equal(put.success, false);
		assert.equal((put.error as Error & { httpCode?: string }).httpCode, '405');
	});
});

describe('refused before any request', () => {
	for (const path of [
		'https://other.example/v1/articles',
		'//other.example/articles',
		'/../x',
		'/articles/../../x',
		'/%2e%2e/x',
		'/articles/.%2E/x',
		'/articles%2F..%2Fx',
		'\\\\other.example\\x',
		'/articles?limit=1',
		'/v1/articles',
		'/articles//x',
		'={{ "  " }}',
	]) {
		test(`Path ${JSON.stringify(path)}`, async () => {
			await assertRefusedBeforeRequest(env, send({ path }), 'Path');
		});
	}

	test('a Body that is not JSON, or not an object, names Body', async () => {
		for (const body of ['{ "montant": 10', '[1, 2]', '"text"']) {
			const error = await assertRefusedBeforeRequest(
				env,
				send({ method: 'POST', path: '/reglements', body }),
				'Body',
			);
			assert.match(error.message, /JSON/);
		}
	});

	test('Method, Limit, Output and Query Parameters name themselves', async () => {
		await assertRefusedBeforeRequest(
			env,
			send({ method: '={{ "TRACE" }}', path: '/articles' }),
			'Method',
		);
		await assertRefusedBeforeRequest(env, send({ path: '/articles', limit: 0 }), 'Limit');
		await assertRefusedBeforeRequest(
			env,
			send({ path: '/articles', output: '={{ "everything" }}' }),
			'Output',
		);
		await assertRefusedBeforeRequest(
			env,
			send({ path: '/articles', queryParameters: query({ '={{ "" }}': 'x' }) }),
			'Query Parameters › Parameter 1 › Name',
		);
		await assertRefusedBeforeRequest(
			env,
			send({
				path: '/articles',
				queryParameters: {
					parameter: [
						{ name: 'q', value: 'a' },
						{ name: 'q', value: 'b' },
					],
				},
			}),
			'Query Parameters',
		);
	});

	test('a bad second item stops the node before the first item is sent', async () => {
		await assertRefusedBeforeRequest(env, send({ path: '={{ $json.path }}' }), 'Path', {
			input: [{ path: '/articles' }, { path: '/../admin' }],
			item: 1,
		});
	});
});
