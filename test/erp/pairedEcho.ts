// A test-only node that shows what a later node sees of an earlier one: for each item it outputs
// the item's json plus `seen`, its parameter `seen` evaluated for that item, by n8n's own
// expression engine (so `={{ $('Start').item.json.ref }}` follows the items' pairing back to the
// input item, as a Set or Code node would in n8n).
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { testNodeDescription } from '../harness/fixtures';

export const PAIRED_ECHO_TYPE = 'test.pairedEcho';

/** What a later node gets for `$('Start').item.json.ref` (the harness's start node is "Start"). */
export const START_REF = "={{ $('Start').item.json.ref }}";

export const pairedEchoNode: INodeType = {
	description: testNodeDescription('pairedEcho', 'Paired Echo', {
		properties: [{ displayName: 'Seen', name: 'seen', type: 'string', default: '' }],
	}),
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, itemIndex) => ({
				json: { ...item.json, seen: this.getNodeParameter('seen', itemIndex) as string },
				pairedItem: { item: itemIndex },
			})),
		];
	},
};
