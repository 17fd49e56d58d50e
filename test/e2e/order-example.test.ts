/* eslint-disable @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * The order example (examples/order-to-invoice.json) in real n8n, imported as `npm start` imports
 * it and published: what the shop's HTTP call gets back from the production webhook.
 * - 200 with the settlement (paid order) or the invoice (unpaid order);
 * - the same order sent again: 200 again, and still one invoice (control: another order number
 *   makes a second one, so the count can go up);
 * - a bad order (unknown SKU, fractional quantity, no list of lines, bad email): 422 with our
 *   node's message, naming the field and the value, and no invoice;
 * - the ERP unreachable (the credential's Base URL on a closed port), then rate-limited past the
 *   Max Rate-Limit Wait: 503 with Retry-After.
 *
 * Escape hatch for quick local loops only: ERP_SKIP_E2E=1 skips this file (never in CI).
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import { demoCredential, EXAMPLE_IDS, loadExample } from '../../scripts/examples';
import { N8N_VERSION } from '../../scripts/n8n-env';
import {
	freePort,
	importCredentials,
	keepFilesOnFailure,
	skipE2e,
} from '../../scripts/n8n-instance';
import { expectCount, expectRuns } from './count';
import { e2eLog, erp, MINUTE, startPublished, type ApiJson, type E2e } from './helpers';

const SKIP = skipE2e();
const log = e2eLog('e2e order');

const example = loadExample(EXAMPLE_IDS.orderToInvoice);
const webhookPath = String(
	example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path,
);

type Line = { sku: string; quantity: number };

/**
 * Counting in the sandbox reads its API with the demo key, whose rate limit (100 a minute) n8n's
 * credential shares: one reading a second, not the default four.
 */
const SANDBOX_POLL = { pollMs: 1000 };

(SKIP ? describe.skip : describe)(`the order example in real n8n ${N8N_VERSION}`, () => {
	let e2e: E2e;
	const files = keepFilesOnFailure(log);
	const track = files.track;
	const email = `order-${Date.now()}@shop.example`;

	beforeAll(async () => {
		e2e = await startPublished(example, { folderPrefix: 'n8n-nodes-erp-e2e-order-', log, files });
	}, 75 * MINUTE);

	afterAll(async () => {
		await e2e?.stop();
	}, 80 * MINUTE);

	const order = (number: string, status: string, lines: Line[], customerEmail = email) => ({
		order_number: number,
		financial_status: status,
		customer: { email: customerEmail, name: 'Jeanne Commande' },
		line_items: lines,
	});
	const mugsAndOther: Line[] = [
		{ sku: 'MUG-BLUE', quantity: 2 }, // REF-000001 in the example's SKU table
		{ sku: 'REF-000010', quantity: 1 }, // not in the table: used as the reference
	];

	/** Posts an order to the published webhook: the status, headers and JSON the shop gets. */
	async function send(body: unknown) {
		const response = await fetch(`${e2e.n8n!.url}/webhook/${webhookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(3 * MINUTE),
		});
		const text = await response.text();
		log(`order answered ${response.status}: ${text.slice(0, 300)}`);
		return {
			status: response.status,
			headers: response.headers,
			json: JSON.parse(text) as ApiJson,
		};
	}

	/** The settlement the first paid order was answered with (test 1), for the re-send (test 2). */
	let firstSettlement: ApiJson;

	const invoicesOf = async (orderNumber: string): Promise<ApiJson[]> =>
		(await erp(e2e.sandbox, `/factures?reference_externe=${encodeURIComponent(orderNumber)}`)).data;

	it(
		'200: a paid order answers with the settlement, an unpaid one with its invoice',
		track(async () => {
			const [mug, other] = [
				(await erp(e2e.sandbox, '/articles?reference=REF-000001')).data[0],
				(await erp(e2e.sandbox, '/articles?reference=REF-000010')).data[0],
			];
			const paidAnswer = await send(order('E2E-1001', 'paid', mugsAndOther));
			assert.equal(paidAnswer.status, 200, JSON.stringify(paidAnswer.json));
			const clients = (await erp(e2e.sandbox, `/clients?q=${encodeURIComponent(email)}`)).data;
			assert.equal(clients.length, 1, 'the client is created once');
			assert.equal(clients[0].nom, 'Jeanne Commande');
			const [paid] = await invoicesOf('E2E-1001');
			assert.equal(paid.client_id, clients[0].id);
			assert.deepEqual(
				paid.lignes.map((l: { article_id: string; quantite: number }) => [
					l.article_id,
					l.quantite,
				]),
				[
					[mug.id, 2],
					[other.id, 1],
				],
			);
			assert.equal(paid.statut, 'payee');
			assert.equal(paid.reste_a_payer, 0);
			assert.equal(paidAnswer.json.facture_id, paid.id, 'the answer is the settlement');
			assert.equal(paidAnswer.json.montant, paid.total_ttc);
			firstSettlement = paidAnswer.json;
			assert.equal((await erp(e2e.sandbox, `/articles/${mug.id}`)).stock, mug.stock - 2);

			// Same customer, unpaid order: the client is found, the invoice stays open.
			const openAnswer = await send(order('E2E-1002', 'pending', mugsAndOther));
			assert.equal(openAnswer.status, 200, JSON.stringify(openAnswer.json));
			const [open] = await invoicesOf('E2E-1002');
			assert.equal(openAnswer.json.id, open.id, 'an unpaid order is answered with its invoice');
			assert.equal(open.statut, 'emise');
			assert.equal(open.reste_a_payer, open.total_ttc);

			const runs = await expectRuns(e2e.rest, EXAMPLE_IDS.orderToInvoice, 2);
			assert.ok(
				runs.every((r) => r.status === 'success'),
				JSON.stringify(runs),
			);
			await expectCount(
				'clients with the order email',
				1,
				async () => ({
					count: (await erp(e2e.sandbox, `/clients?q=${encodeURIComponent(email)}`)).data.length,
				}),
				SANDBOX_POLL,
			);
		}),
		80 * MINUTE,
	);

	it(
		'the same order sent again: 200 with the same settlement, still one invoice (control: a new order number makes a second)',
		track(async () => {
			const first = (await invoicesOf('E2E-1001'))[0];
			const again = await send(order('E2E-1001', 'paid', mugsAndOther));
			assert.equal(again.status, 200, JSON.stringify(again.json));
			assert.deepEqual(
				again.json,
				{ ...firstSettlement, already_recorded: true },
				'answered with the first settlement, found',
			);
			assert.equal(again.json.facture_id, first.id);
			const invoice = await erp(e2e.sandbox, `/factures/${first.id}`);
			assert.equal(invoice.montant_regle, invoice.total_ttc, 'paid once, not twice');
			await expectCount(
				'invoices of order E2E-1001',
				1,
				async () => ({ count: (await invoicesOf('E2E-1001')).length }),
				SANDBOX_POLL,
			);

			// Control: the counter sees a second invoice when there is one.
			const other = await send(order('E2E-1003', 'paid', mugsAndOther));
			assert.equal(other.status, 200, JSON.stringify(other.json));
			const clientId = first.client_id as string;
			await expectCount(
				'invoices of the client (E2E-1001, E2E-1002, E2E-1003)',
				3,
				async () => ({
					count: (await erp(e2e.sandbox, `/factures?client_id=${clientId}`)).data.length,
				}),
				SANDBOX_POLL,
			);
		}),
		80 * MINUTE,
	);

	it(
		'422: a bad order gets our message naming the field and the value, and nothing is invoiced',
		track(async () => {
			const cases: Array<{ body: unknown; number: string; message: RegExp }> = [
				{
					number: 'E2E-BAD-SKU',
					body: order('E2E-BAD-SKU', 'paid', [{ sku: 'NO-SUCH-SKU', quantity: 1 }]),
					message: /^Invalid value for "Lines \(JSON\)\[0\]\.reference": .*"NO-SUCH-SKU"$/,
				},
				{
					number: 'E2E-BAD-QTY',
					body: order('E2E-BAD-QTY', 'paid', [{ sku: 'MUG-BLUE', quantity: 1.5 }]),
					message: /^Invalid value for "Lines \(JSON\)\[0\]\.quantite": .*1\.5$/,
				},
				{
					number: 'E2E-NO-LINES',
					body: { ...order('E2E-NO-LINES', 'paid', []), line_items: 'two blue mugs' },
					message: /^Invalid value for "Lines.*at least one line/,
				},
				{
					number: 'E2E-BAD-EMAIL',
					body: order('E2E-BAD-EMAIL', 'paid', mugsAndOther, 'not-an-email'),
					message: /^Invalid value for "Email": .*"not-an-email"$/,
				},
			];
			for (const { body, message } of cases) {
				const answer = await send(body);
				assert.equal(answer.status, 422, JSON.stringify(answer.json));
				assert.match(String(answer.json.message), message);
				assert.equal(answer.headers.get('retry-after'), null);
			}
			const numbers = cases.map((c) => c.number);
			await expectCount(
				`invoices of the bad orders ${numbers.join(', ')}`,
				0,
				async () => {
					const invoices = (await erp(e2e.sandbox, '/factures?limit=100')).data.filter(
						(f: { reference_externe: string }) => numbers.includes(f.reference_externe),
					);
					return { count: invoices.length, detail: invoices };
				},
				SANDBOX_POLL,
			);
		}),
		80 * MINUTE,
	);

	it(
		'503 with Retry-After: the ERP unreachable, then rate-limited past the Max Rate-Limit Wait',
		track(async () => {
			const tryLater = async (number: string, code: string) => {
				const answer = await send(order(number, 'paid', mugsAndOther));
				assert.equal(answer.status, 503, JSON.stringify(answer.json));
				assert.equal(answer.headers.get('retry-after'), '60');
				assert.equal(answer.json.code, code);
				assert.match(String(answer.json.message), /Send the same order again later/);
			};
			// Unreachable: the credential's Base URL on a port nothing listens on.
			const deadUrl = `http://127.0.0.1:${await freePort()}/v1`;
			await importCredentials(e2e.config, [demoCredential(deadUrl)], log);
			await tryLater('E2E-DOWN', 'econnrefused');
			await importCredentials(e2e.config, [demoCredential(e2e.sandbox.baseUrl)], log);

			// Rate-limited: one request an hour, so the ERP asks for a wait far past the 60 s cap.
			const config = async (body: unknown) =>
				await fetch(`${e2e.sandbox.url}/_sandbox/config`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(body),
				});
			await config({ rateLimit: { limit: 1, windowSeconds: 3600 } });
			try {
				await tryLater('E2E-BUSY', 'rate_limited');
			} finally {
				await config({ rateLimit: { limit: 100, windowSeconds: 60 } });
			}
			for (const number of ['E2E-DOWN', 'E2E-BUSY'])
				assert.deepEqual(await invoicesOf(number), [], `no invoice for ${number}`);
		}),
		80 * MINUTE,
	);
});
