import type {
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	authenticationDescription,
	erpCredentialsDescription,
	erpIcon,
	optionsCollection,
} from '../shared/descriptions';
import { WATCH_OPTIONS, WATCH_PROPERTIES } from '../shared/watches';
import { manualPoll, scheduledPoll } from './poll';
import { DEFAULT_MAX_PAGES, MAX_PAGES_CAP, readSettings } from './settings';

const properties: INodeProperties[] = [
	authenticationDescription,
	{
		displayName:
			'Checks the ERP at the Poll Times above (every minute at most); no webhook needed, so it works when the ERP cannot reach n8n. What it has seen is kept with the workflow: after n8n was stopped, the next polls catch up in order, nothing skipped or repeated. The first activation starts from now. Each poll costs one request per 100 new records (at least one): polling every minute costs 60 requests an hour when nothing happens.',
		name: 'pollingNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Watch',
		name: 'watch',
		type: 'options',
		options: WATCH_OPTIONS,
		default: 'lowStock',
		description: "What starts the workflow. Each item has the same fields as the ERP Trigger's.",
	},
	...WATCH_PROPERTIES,
	optionsCollection([
		{
			displayName: 'Max Pages per Poll',
			name: 'maxPages',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_PAGES_CAP },
			default: DEFAULT_MAX_PAGES,
			description:
				'At most this many pages of 100 new records per poll. After downtime, a larger backlog is caught up over the next polls, in order, so a poll never uses more of the rate limit than this.',
		},
		{
			displayName: 'Start From',
			name: 'startFrom',
			type: 'options',
			options: [
				{
					name: 'Now',
					value: 'now',
					description: 'Only what happens after the first activation',
				},
				{
					name: 'The Beginning',
					value: 'beginning',
					description: 'Everything the ERP still lists, oldest first',
				},
				{
					name: 'A Date',
					value: 'date',
					description: 'Records created at or after a date',
				},
			],
			default: 'now',
			description:
				'Where the first activation starts. Later activations go on from what was already seen.',
		},
		{
			displayName: 'Start Date',
			name: 'startDate',
			type: 'dateTime',
			default: '',
			displayOptions: { show: { startFrom: ['date'] } },
		},
	]),
];

export class ErpPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'ERP Polling Trigger',
		name: 'erpPollingTrigger',
		icon: erpIcon,
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["watch"]}}',
		description:
			'Starts the workflow on new ERP records and low stock by checking the ERP on a schedule (no webhook needed)',
		defaults: {
			name: 'ERP Polling Trigger',
		},
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: erpCredentialsDescription,
		properties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = readSettings(this, properties);
		if (this.getMode() === 'manual') {
			return [this.helpers.returnJsonArray([await manualPoll(this, settings)])];
		}
		const items = await scheduledPoll(this, settings);
		return items?.length ? [this.helpers.returnJsonArray(items)] : null;
	}
}
