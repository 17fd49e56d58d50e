import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { erpCredentialsDescription, erpIcon } from '../shared/descriptions';
import { properties } from './actions/node.description';
import { router } from './actions/router';
import { listSearch, loadOptions } from './methods';

export class Erp implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'ERP',
		name: 'erp',
		icon: erpIcon,
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Manage articles, clients, invoices, settlements, stock movements and the general ledger of the ERP, or call any endpoint of its API',
		defaults: { name: 'ERP' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: erpCredentialsDescription,
		properties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
