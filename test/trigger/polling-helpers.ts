/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// Shared by the polling trigger tests: a sandbox without rate limit, the API calls that make
// records, and readings of the sandbox's own journal, events and request log.
import assert from 'node:assert/strict';
import { afterAll, beforeAll } from '@jest/globals';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEMO_KEYS, sandboxStats, startSandbox, UNPACED } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials, activatePoller } from '../harness';
import type { PollerHandle } from '../harness';
import { api, control, listAll } from './helpers';

export async function pollingSandbox(): Promise<{
	sandbox: SandboxHandle;
	credentials: TestCredentials;
}> {
	const sandbox = await startSandbox({ port: 0, rateLimit: UNPACED });
	const credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
	return { sandbox, credentials };
}

/** For a test file: a sandbox and its credential, started before its tests and closed after. */
export function useSandbox(): { sandbox: SandboxHandle; credentials: TestCredentials } {
	const env = {} as { sandbox: SandboxHandle; credentials: TestCredentials };
	beforeAll(async () => {
		Object.assign(env, await pollingSandbox());
	});
	afterAll(async () => {
		await env.sandbox?.close();
	});
	return env;
}

let counter = 0;

export async function newArticle(
	sandbox: SandboxHandle,
	fields: { stock?: number; seuil_alerte?: number } = {},
): Promise<IDataObject> {
	counter += 1;
	const answer = await api(sandbox, 'POST', '/articles', {
		reference: `POLL-${counter}-${Date.now()}`,
		designation: `Polled article ${counter}`,
		prix_ht: 1000,
		tva: 2000,
		...fields,
	});
	assert.equal(answer.status, 201, JSON.stringify(answer.body));
	return answer.body;
}

export async function newClient(sandbox: SandboxHandle): Promise<IDataObject> {
	counter += 1;
	const answer = await api(sandbox, 'POST', '/clients', {
		nom: `Polled client ${counter}`,
		email: `polled-${counter}-${Date.now()}@example.com`,
	});
	assert.equal(answer.status, 201, JSON.stringify(answer.body));
	return answer.body;
}

/** Sets an article's stock (one `ajustement` movement). */
export async function setStock(sandbox: SandboxHandle, id: unknown, stock: number): Promise<void> {
	const answer = await api(sandbox, 'PATCH', `/articles/${String(id)}`, { stock });
	assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

export async function newInvoice(
	sandbox: SandboxHandle,
	clientId: unknown,
	articleId: unknown,
	quantite = 1,
): Promise<IDataObject> {
	const answer = await api(sandbox, 'POST', '/factures', {
		client_id: clientId,
		lignes: [{ article_id: articleId, quantite }],
	});
	assert.equal(answer.status, 201, JSON.stringify(answer.body));
	return answer.body;
}

export async function pay(sandbox: SandboxHandle, invoice: IDataObject, montant?: number) {
	const answer = await api(sandbox, 'POST', '/reglements', {
		facture_id: invoice.id,
		montant: montant ?? invoice.reste_a_payer,
		mode: 'virement',
	});
	assert.equal(answer.status, 201, JSON.stringify(answer.body));
}

/** The ids of a list, in the API's order, after `afterId` (exclusive) when given. */
export async function idsAfter(
	sandbox: SandboxHandle,
	path: string,
	afterId?: unknown,
): Promise<string[]> {
	const ids = (await listAll(sandbox, path)).map((record) => String(record.id));
	return afterId === undefined ? ids : ids.slice(ids.indexOf(String(afterId)) + 1);
}

/** The data of the events the sandbox emitted (and would have delivered) of one type, in order. */
export async function sandboxEvents(sandbox: SandboxHandle, type: string): Promise<IDataObject[]> {
	const answer = await control(sandbox, 'GET', `/events?type=${type}`);
	return (answer.body.data as IDataObject[]).map((event) => event.data as IDataObject);
}

/** The sandbox's requests by route ("GET /v1/stock/mouvements": n) made while `action` ran. */
export async function requestsDuring(
	sandbox: SandboxHandle,
	action: () => Promise<unknown>,
): Promise<Record<string, number>> {
	const before = (await sandboxStats(sandbox.url)).byPath;
	await action();
	const after = (await sandboxStats(sandbox.url)).byPath;
	const made: Record<string, number> = {};
	for (const [route, n] of Object.entries(after)) {
		const diff = n - (before[route] ?? 0);
		if (diff > 0) made[route] = diff;
	}
	return made;
}

export async function poller(
	credentials: TestCredentials,
	parameters: INodeParameters,
): Promise<PollerHandle> {
	return await activatePoller({ parameters, credentials });
}
