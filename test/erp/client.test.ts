/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// ERP node, resource Client: every operation through a real workflow run against the sandbox,
// checked in the sandbox's own state.
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { IDataObject } from 'n8n-workflow';

import { assertRefusedBeforeRequest, useErpTestEnv, byId } from './setup';

const env = useErpTestEnv();

const clientsMatching = (q: string) => env.list(`/clients?q=${encodeURIComponent(q)}&limit=100`);

describe('client', () => {
	test('create stores the client with its optional fields', async () => {
		const result = await env.run({
			resource: 'client',
			operation: 'create',
			nom: 'Atelier Test',
			email: 'atelier@test.example',
			additionalFields: { telephone: '+33 1 00 00 00 01', adresse: '1 rue du Test, Lyon' },
		});
		assert.equal(result.success, true, result.error?.message);
		const [stored] = await clientsMatching('atelier@test.example');
		assert.equal(stored.id, result.output('ERP')[0].id);
		assert.equal(stored.nom, 'Atelier Test');
		assert.equal(stored.telephone, '+33 1 00 00 00 01');
		assert.equal(stored.adresse, '1 rue du Test, Lyon');
	});

	test('a duplicate email surfaces the 409 with the API message', async () => {
		const result = await env.run({
			resource: 'client',
			operation: 'create',
			nom: 'Again',
			email: 'ATELIER@test.example',
		});
		assert.equal(result.success, false);
		assert.equal((result.error as Error & { httpCode?: string }).httpCode, '409');
		assert.match(result.error!.message, /duplicate_email/);
		assert.match(result.error!.message, /already exists/);
	});

	test('an email that is not an address is refused before any request', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'client', operation: 'create', nom: 'X', email: 'not-an-email' },
			'Email',
		);
	});

	test('get returns the stored client; an unknown ID is a 404 naming it', async () => {
		const [seeded] = await clientsMatching('boulangerie');
		const result = await env.run({
			resource: 'client',
			operation: 'get',
			clientId: byId(String(seeded.id)),
		});
		assert.deepEqual(result.output('ERP'), [seeded]);

		const missing = await env.run({
			resource: 'client',
			operation: 'get',
			clientId: byId('cli_99999999'),
		});
		assert.equal(missing.success, false);
		assert.equal((missing.error as Error & { httpCode?: string }).httpCode, '404');
		assert.match(missing.error!.message, /Client cli_99999999 was not found/);
	});

	test('update changes only the given fields', async () => {
		const [seeded] = await clientsMatching('garage');
		const result = await env.run({
			resource: 'client',
			operation: 'update',
			clientId: byId(String(seeded.id)),
			updateFields: { telephone: '+33 4 11 22 33 44' },
		});
		assert.equal(result.success, true, result.error?.message);
		const { body } = await env.api('GET', `/clients/${String(seeded.id)}`);
		assert.equal(body.telephone, '+33 4 11 22 33 44');
		assert.equal(body.nom, seeded.nom);
		assert.equal(body.email, seeded.email);
	});

	test('update with no field, or a malformed ID, is refused before any request', async () => {
		await assertRefusedBeforeRequest(
			env,
			{ resource: 'client', operation: 'update', clientId: byId('cli_00000001'), updateFields: {} },
			'Update Fields',
		);
		// From an expression, the node's own check refuses the wrong kind of ID.
		await assertRefusedBeforeRequest(
			env,
			{
				resource: 'client',
				operation: 'update',
				clientId: byId('={{ $json.id }}'),
				updateFields: { nom: 'x' },
			},
			'Client',
			{ input: [{ id: 'art_00000001' }] },
		);
		// Typed in, the locator's own pattern stops the workflow before it starts.
		const before = (await env.stats()).requests;
		await assert.rejects(
			env.run({ resource: 'client', operation: 'get', clientId: byId('fac_00000001') }),
			/Not a valid client ID/,
		);
		assert.equal((await env.stats()).requests, before);
	});

	test('find or create by email creates once, then finds (case-insensitive)', async () => {
		const before = await env.stats();
		const first = await env.run({
			resource: 'client',
			operation: 'findOrCreate',
			email: 'New.Buyer@shop.example',
			nom: 'New Buyer',
		});
		assert.equal(first.success, true, first.error?.message);
		const second = await env.run({
			resource: 'client',
			operation: 'findOrCreate',
			email: 'new.buyer@SHOP.example',
			nom: 'Another name',
		});
		assert.equal(second.success, true, second.error?.message);
		assert.equal(first.output('ERP')[0]._action, 'created');
		assert.equal(second.output('ERP')[0]._action, 'found');
		assert.equal(second.output('ERP')[0].id, first.output('ERP')[0].id);
		assert.equal(second.output('ERP')[0].nom, 'New Buyer', 'the found client is not changed');
		const after = await env.stats();
		assert.equal(
			(after.byPath['POST /v1/clients'] ?? 0) - (before.byPath['POST /v1/clients'] ?? 0),
			1,
		);
		assert.equal((await clientsMatching('new.buyer@shop.example')).length, 1);
	});

	test('get many: search text and Return All', async () => {
		const search = await env.run({
			resource: 'client',
			operation: 'getAll',
			returnAll: true,
			filters: { q: 'cafe' },
		});
		const expected = await clientsMatching('cafe');
		assert.ok(expected.length > 0);
		assert.deepEqual(search.output('ERP'), expected);

		const all = await env.run({ resource: 'client', operation: 'getAll', returnAll: true });
		const { body } = await env.api('GET', '/clients?limit=1');
		assert.equal(all.output('ERP').length, (body.pagination as IDataObject).total);
	});

	test('list search finds clients by name or email', async () => {
		const { results } = await env.listSearch('searchClients', 'pharmacie');
		assert.equal(results.length, 1);
		assert.match(String(results[0].name), /Pharmacie Moreau \(contact@pharmacie-moreau\.example\)/);
		assert.match(String(results[0].value), /^cli_/);
	});
});
