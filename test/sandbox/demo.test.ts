/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- reads the example and scripts/start.ts from the repository */
/**
 * The sandbox's seed fits the examples (issue 15): each SKU of the order-to-invoice example's SKU
 * table is an article of that kind, a search for "mug" finds the mugs and only them, and the
 * second order `npm start` prints (12 × MUG-RED) brings that article from above its alert
 * threshold to at or below it, which is what makes the ERP send stock.bas.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from '@jest/globals';

import { call } from '../../sandbox';
import { PUBLISHED_EXAMPLES, workflowLines } from '../../scripts/banner';
import { loadExamples } from '../../scripts/examples';
import { useSandbox } from '../harness/sandbox';

const example = JSON.parse(
	fs.readFileSync(path.join(__dirname, '../../examples/order-to-invoice.json'), 'utf8'),
) as { nodes: Array<{ name: string; parameters: Record<string, unknown> }> };

/** The example's SKU table, as its Set node holds it. */
function skuTable(): Record<string, string> {
	const node = example.nodes.find((n) => n.name === 'SKU table');
	const fields = (
		node?.parameters.assignments as { assignments: Array<{ name: string; value: string }> }
	).assignments;
	return JSON.parse(fields.find((f) => f.name === 'skuToReference')?.value ?? '{}');
}

const start = fs.readFileSync(path.join(__dirname, '../../scripts/start.ts'), 'utf8');

describe('the seed fits the examples', () => {
	const sb = useSandbox();
	const article = async (reference: string) =>
		(await call(sb.baseUrl, 'GET', `/articles?reference=${reference}`)).json.data[0];

	test('each SKU is an article of its kind', async () => {
		const table = skuTable();
		const kinds: Record<string, RegExp> = { MUG: /^Mug /, TEE: /^T-shirt / };
		assert.ok(Object.keys(table).length >= 4);
		for (const [sku, reference] of Object.entries(table)) {
			const kind = kinds[sku.split('-')[0]];
			assert.ok(kind, `a known kind for ${sku}`);
			assert.match(String((await article(reference)).designation), kind, sku);
		}
	});

	test('a search for "mug" finds the mugs, and nothing else', async () => {
		const found = (await call(sb.baseUrl, 'GET', '/articles?q=mug&limit=100')).json.data as Array<{
			designation: string;
		}>;
		assert.ok(found.length >= 2);
		for (const a of found) assert.match(a.designation, /\bmug\b/i);
	});

	test("npm start's second order brings the red mug to its alert threshold", async () => {
		const order = /"sku":"MUG-RED","quantity":(\d+)/.exec(start);
		assert.ok(order, 'scripts/start.ts prints an order of red mugs');
		const quantity = Number(order[1]);
		const mug = await article(skuTable()['MUG-RED']);
		assert.ok(mug.stock > mug.seuil_alerte, 'above the threshold before');
		assert.ok(mug.stock - quantity <= mug.seuil_alerte, 'at or below it after');
		assert.ok(mug.stock - quantity >= 0, 'enough stock to sell');
		assert.match(start, new RegExp(`${mug.stock} in stock, alert threshold ${mug.seuil_alerte}`));
		// Control: the first order (2 blue mugs) does not.
		const blue = await article(skuTable()['MUG-BLUE']);
		assert.ok(blue.stock - 2 > blue.seuil_alerte);
	});

	test("npm start's ready banner names every example workflow it imports", () => {
		const examples = loadExamples().map(({ workflow }) => workflow);
		const lines = workflowLines(examples).join('\n');
		for (const { name } of examples)
			assert.ok(lines.includes(`"${name}"`), `${name} in:\n${lines}`);
		assert.equal(lines.match(/\(published\)/g)?.length, PUBLISHED_EXAMPLES.length);
		assert.match(start, /workflowLines\(loadExamples\(\)/, 'the banner prints these lines');
		// Control: an example added to examples/ is named too.
		const added = { ...examples[0], id: 'ErpAddedExample1', name: 'ERP example: added' };
		assert.match(
			workflowLines([...examples, added]).join('\n'),
			/"ERP example: added" \(not published\)/,
		);
	});
});
