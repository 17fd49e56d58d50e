/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The labels an ops user meets, read from the node descriptions themselves (issue 15): the
 * Operation dropdown says what the actions list says, Request Options offer the idempotency key
 * only where a record may be created, and the few wordings the issue names.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { properties } from '../../nodes/Erp/actions/node.description';
import { EVENT_OPTIONS } from '../../nodes/ErpTrigger/events';

/** Every resource with its Operation options. */
function operations(): Array<{ resource: string; option: INodePropertyOptions }> {
	const result = [];
	for (const property of properties.filter((p) => p.name === 'operation')) {
		const [resource] = property.displayOptions?.show?.resource as string[];
		for (const option of property.options as INodePropertyOptions[]) {
			result.push({ resource, option });
		}
	}
	return result;
}

/** The operation's label agrees with its action when the action starts with it ("Issue" / "Issue an invoice"). */
const agrees = (option: INodePropertyOptions) =>
	String(option.action).toLowerCase().startsWith(`${option.name.toLowerCase()} `);

/** The properties n8n shows for these parameter values. */
const shown = (values: Record<string, string>) =>
	properties.filter((p) => NodeHelpers.displayParameter(values, p, { typeVersion: 1 }, null));

describe('ERP node labels', () => {
	test('every operation label is the verb of its action', () => {
		const all = operations();
		assert.ok(all.length >= 17, `found ${all.length} operations`);
		const mismatched = all
			.filter(({ option }) => !agrees(option))
			.map(({ resource, option }) => `${resource}: "${option.name}" / "${option.action}"`);
		assert.deepEqual(mismatched, []);
		// Control: the label the issue reported does not pass.
		assert.equal(agrees({ name: 'Create', value: 'create', action: 'Issue an invoice' }), false);
		const invoice = all.find((o) => o.resource === 'invoice' && o.option.value === 'create');
		assert.equal(invoice?.option.name, 'Issue');
		const settlement = all.find((o) => o.resource === 'settlement' && o.option.value === 'create');
		assert.equal(settlement?.option.name, 'Record');
	});

	test('the idempotency key is offered where a record may be created, and not on reads', () => {
		const offers = (resource: string, operation: string) => {
			const options = shown({ resource, operation }).filter((p) => p.name === 'requestOptions');
			assert.equal(options.length, 1, `${resource} › ${operation}: one Request Options`);
			const names = (options[0].options as INodeProperties[]).map((o) => o.name);
			assert.ok(names.includes('maxWaitSeconds'), `${resource} › ${operation}: wait cap offered`);
			return names.includes('idempotency');
		};
		const creating = new Set(['create', 'findOrCreate', 'send']);
		let counted = 0;
		for (const { resource, option } of operations()) {
			assert.equal(
				offers(resource, String(option.value)),
				creating.has(String(option.value)),
				`${resource} › ${option.name}`,
			);
			counted++;
		}
		assert.ok(counted >= 17);
		assert.equal(offers('article', 'getAll'), false);
		assert.equal(offers('invoice', 'create'), true);
	});

	test('Settlement › Record: the amount has no 0 default and no API jargon in its hint', () => {
		const amount = shown({ resource: 'settlement', operation: 'create' }).find(
			(p) => p.name === 'montant',
		);
		assert.ok(amount);
		assert.notEqual(amount.default, 0);
		assert.doesNotMatch(String(amount.hint), /API field/);
		assert.match(String(amount.hint), /12000 means 120\.00/);
	});

	test('Invoice › Issue from JSON: the lines help is a notice, so it shows in expression mode too', () => {
		const fields = shown({ resource: 'invoice', operation: 'create', linesMode: 'json' });
		const at = fields.findIndex((p) => p.name === 'linesJson');
		const notice = fields[at - 1];
		assert.equal(notice?.type, 'notice', 'a notice right above Lines (JSON)');
		assert.match(notice.displayName, /\[\{"reference": "MUG-BLUE", "quantity": 2\}\]/);
		assert.match(notice.displayName, /reference: i\.sku/);
		// Control: the notice is not shown when the lines are defined in the form.
		const defined = shown({ resource: 'invoice', operation: 'create', linesMode: 'define' });
		assert.equal(
			defined.find((p) => p.name === notice.name),
			undefined,
		);
	});

	test('ERP Trigger: every event has an action in plain words, VAT in capitals', () => {
		const options = EVENT_OPTIONS;
		assert.ok(options.length >= 6);
		for (const option of options)
			assert.match(String(option.action), /^On (VAT|[a-z])/, option.name);
		assert.equal(options.find((o) => o.value === 'tva.declaree')?.action, 'On VAT return filed');
	});
});
