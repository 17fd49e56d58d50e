/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The ERP node as an AI Agent tool (issue 15). n8n 2.41 describes a resource/operation node to the
 * model with its operation's `action` ("<action> in ERP", NodeHelpers.getToolDescriptionForNode),
 * so the list operations name their filters there; and a bad value in the tool variant
 * (type "…erpTool") is reported without the "[item N]" that means nothing to a model.
 */
import assert from 'node:assert/strict';
import { describe, test } from '@jest/globals';

import type { INode, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { properties } from '../../nodes/Erp/actions/node.description';
import { invalid } from '../../nodes/shared/validation';

const node = (type: string, parameters: INode['parameters'] = {}): INode => ({
	id: 'tool-1',
	name: 'ERP',
	type,
	typeVersion: 1,
	position: [0, 0],
	parameters,
});

describe('ERP node as an AI tool', () => {
	test("the model's description of each list names its filters", () => {
		const nodeType = {
			description: {
				name: 'erpTool',
				defaults: { name: 'ERP' },
				properties,
			} as unknown as INodeTypeDescription,
		} as INodeType;
		const described = (resource: string, operation: string) =>
			NodeHelpers.getToolDescriptionForNode(
				node('n8n-nodes-erp.erpTool', { descriptionType: 'auto', resource, operation }),
				nodeType,
			);
		assert.equal(
			described('article', 'getAll'),
			'Get many articles by search text or reference or category in ERP',
		);
		assert.match(described('invoice', 'getAll'), /by client or status/);
		assert.match(described('client', 'getAll'), /search/);
		assert.match(described('stockMovement', 'getAll'), /article or date range/);
		assert.match(described('generalLedger', 'getAll'), /date range or account/);
	});

	test('a bad value: no "[item 0]" for the tool variant; the item is still named in a workflow', () => {
		const source = { label: 'Limit', itemIndex: 0 };
		const asTool = invalid(
			{ ...source, node: node('n8n-nodes-erp.erpTool') },
			'must be at least 1',
		);
		assert.equal(asTool.message, 'Invalid value for "Limit": must be at least 1');
		// Control: the regular node keeps the item number, useful with many items.
		const inWorkflow = invalid(
			{ ...source, node: node('n8n-nodes-erp.erp') },
			'must be at least 1',
		);
		assert.equal(inWorkflow.message, 'Invalid value for "Limit": must be at least 1 [item 0]');
	});
});
