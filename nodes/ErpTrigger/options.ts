import type {
	IDataObject,
	IHookFunctions,
	INodeProperties,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { optionsCollection } from '../shared/descriptions';
import type { ValueSource } from '../shared/validation';
import { invalid, labelOf, show, toInteger } from '../shared/validation';

const DEFAULT_TOLERANCE_SECONDS = 300;
const DEFAULT_CHECK_MINUTES = 15;

export const optionsDescription = optionsCollection([
	{
		displayName: 'Catch Up Missed Events',
		name: 'catchUp',
		type: 'boolean',
		default: true,
		description:
			"Whether to run, once each, the Sale Created, Invoice Paid and Stock Low events the webhook missed (n8n down, the registration lost, deliveries the ERP gave up on), read from the ERP's lists at every Registration Check Interval; an event that came both ways runs once. Each check costs one list request per selected event of these three when nothing is new, plus one article read (GET /articles/{ID}) per article whose stock went down (Stock Low) and the two unpaid-invoice lists while invoices are unpaid (Invoice Paid). Payroll Validated and VAT Return Filed have no list to catch up from. Needs the deliveries to reach the n8n process that runs this workflow's triggers: turn it off when queue-mode webhook processors receive them.",
	},
	{
		displayName: 'Include Headers',
		name: 'includeHeaders',
		type: 'boolean',
		default: false,
		description:
			'Whether to add the delivery headers (event ID, timestamp, signature, content type, ...) to the output item under headers',
	},
	{
		displayName: 'Registration Check Interval (Minutes)',
		name: 'checkMinutes',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1440 },
		default: DEFAULT_CHECK_MINUTES,
		description:
			'How often the published trigger checks that the ERP still holds its registration (active, with this URL, these events and a secret it holds) and restores it if not, then catches up missed events (Catch Up Missed Events). Each registration check costs one request to the ERP (reading the registration by its ID; automatic registration only); a restore a few more.',
	},
	{
		displayName: 'Signature Tolerance (Seconds)',
		name: 'toleranceSeconds',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 86400 },
		default: DEFAULT_TOLERANCE_SECONDS,
		description:
			'How far the delivery timestamp may be from the current time, in the past or the future, before the delivery is refused as stale or forged',
	},
]);

/** The node's Options, checked: a bad value set through an expression is refused naming it. */
export function readOptions(context: IHookFunctions | IWebhookFunctions | ITriggerFunctions) {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const at = (name: string): ValueSource => ({
		node: context.getNode(),
		label: labelOf(optionsDescription.options as INodeProperties[], name),
	});
	const whole = (name: string, fallback: number, max: number): number => {
		const value = options[name] ?? fallback;
		// A number, as the option's type says (a text of digits set by an expression is refused too).
		if (typeof value !== 'number') {
			throw invalid(at(name), `expected a whole number, got ${show(value)}`);
		}
		return toInteger(at(name), value, { min: 1, max });
	};
	const flag = (name: string, fallback: boolean): boolean => {
		const value = options[name] ?? fallback;
		if (typeof value !== 'boolean')
			throw invalid(at(name), `expected true or false, got ${show(value)}`);
		return value;
	};
	return {
		toleranceSeconds: whole('toleranceSeconds', DEFAULT_TOLERANCE_SECONDS, 86400),
		checkMinutes: whole('checkMinutes', DEFAULT_CHECK_MINUTES, 1440),
		includeHeaders: flag('includeHeaders', false),
		catchUp: flag('catchUp', true),
	};
}

export type TriggerOptions = ReturnType<typeof readOptions>;
