import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import type { ValueSource } from '../../../shared/validation';
import {
	invalid,
	isBlank,
	labelOf,
	toBoolean,
	toEnum,
	toId,
	toInteger,
	toText,
} from '../../../shared/validation';
import { optionsCollection } from '../../../shared/descriptions';
import { additionalFields, articleLocator, clientLocator, dateField } from '../common.descriptions';
import type { ItemErp, Prepared } from '../erp';
import { checkFields, fieldSpecs, source } from '../fields';
import type { Locator } from '../locators';
import { getLocatorId, readLocator, resolveArticleIds } from '../locators';
import { issueOnce } from './oncePerReference';

/** Shown above Lines (JSON) in fixed and expression mode alike (a hint hides in expression mode). */
const JSON_LINES_NOTICE =
	'One object per line, e.g. [{"reference": "MUG-BLUE", "quantity": 2}]. Use "reference" (the article reference) or "article_id" (art_…), and "quantity" (or "quantite"); "unit_price" (or "prix_ht", cents) is optional, the article\'s price otherwise. Shop line items carrying a SKU: {{ $json.line_items.map(i => ({ reference: i.sku, quantity: i.quantity })) }} when the SKUs are your article references, otherwise map them through a SKU table as the order-to-invoice example does.';

export const properties: INodeProperties[] = [
	clientLocator,
	{
		displayName: 'Lines Source',
		name: 'linesMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Define Below',
				value: 'define',
				description: 'Pick each article and its quantity here',
			},
			{
				name: 'From JSON',
				value: 'json',
				description: 'Take the lines from an earlier node, for example the line items of an order',
			},
		],
		default: 'define',
	},
	{
		displayName: 'Lines',
		name: 'lines',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Line',
		default: {},
		displayOptions: { show: { linesMode: ['define'] } },
		options: [
			{
				displayName: 'Line',
				name: 'line',
				values: [
					articleLocator,
					{
						displayName: 'Quantity',
						name: 'quantite',
						type: 'number',
						default: 1,
						description: 'Whole number of units, 1 or more (API field quantite)',
					},
					{
						displayName: 'Unit Price (Cents)',
						name: 'prix_ht',
						type: 'string',
						default: '',
						placeholder: "Article's price",
						description:
							"Unit price excluding tax in cents, a whole number (API field prix_ht). Leave empty to use the article's price.",
					},
				],
			},
		],
	},
	{
		displayName: JSON_LINES_NOTICE,
		name: 'linesJsonNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { linesMode: ['json'] } },
	},
	{
		displayName: 'Lines (JSON)',
		name: 'linesJson',
		type: 'json',
		default: '[]',
		required: true,
		description:
			'The invoice lines as a JSON array; other keys of a line are ignored, and each distinct reference is looked up once',
		displayOptions: { show: { linesMode: ['json'] } },
	},
	{
		...additionalFields([
			dateField('Date', 'date', 'Invoice date (API field date); today when empty'),
			{
				displayName: 'External Reference',
				name: 'reference_externe',
				type: 'string',
				default: '',
				placeholder: 'e.g. order #1042',
				description:
					'Your own reference for the invoice, for example the e-commerce order number (API field reference_externe)',
				hint: "Set it to the order number: the node then issues at most one invoice per reference, even on a retry, a re-run or a changed order, whatever the ERP does with Idempotency-Key. Without it, only the ERP's Idempotency-Key guards against a second invoice.",
			},
		]),
		hint: 'Add External Reference (the order number) so that an order never gets two invoices, even where the ERP ignores Idempotency-Key',
	},
	optionsCollection([
		{
			displayName: 'Check for an Existing Invoice',
			name: 'checkExisting',
			type: 'boolean',
			default: true,
			description:
				'Whether to look for an invoice with the same External Reference before issuing: the same order gives that invoice back ("already_issued": true), a changed order an error naming it. Off: only the ERP\'s Idempotency-Key guards against a second invoice.',
		},
	]),
];

interface Line {
	locator: Locator;
	label: string;
	quantite: number;
	prix_ht?: number;
}

function readDefinedLines(ctx: IExecuteFunctions, itemIndex: number): Line[] {
	const rows = ctx.getNodeParameter('lines.line', itemIndex, []) as IDataObject[];
	return rows.map((row, k) => {
		const at = (field: string) => source(ctx, `Lines › Line ${k + 1} › ${field}`, itemIndex);
		const article = at('Article');
		const price = isBlank(row.prix_ht)
			? {}
			: { prix_ht: toInteger(at('Unit Price (Cents)'), row.prix_ht, { min: 0 }) };
		return {
			label: article.label,
			locator: readLocator(article, row.articleId, 'article'),
			quantite: toInteger(at('Quantity'), row.quantite, { min: 1 }),
			...price,
		};
	});
}

/** The key used, and its value, of two synonyms (`a` if neither is given); both only if equal. */
function either(line: IDataObject, a: string, b: string, at: (key: string) => ValueSource) {
	const [va, vb] = [line[a], line[b]];
	if (!isBlank(va) && !isBlank(vb) && String(va) !== String(vb)) {
		throw invalid(at(a), `"${a}" (${String(va)}) and "${b}" (${String(vb)}) disagree; give one`);
	}
	return isBlank(va) && !isBlank(vb) ? { src: at(b), value: vb } : { src: at(a), value: va };
}

function readJsonLines(ctx: IExecuteFunctions, itemIndex: number): Line[] {
	const all = source(ctx, 'Lines (JSON)', itemIndex);
	const fail = (src: ValueSource, problem: string) => invalid(src, problem, JSON_LINES_NOTICE);
	let value: unknown = ctx.getNodeParameter('linesJson', itemIndex);
	if (typeof value === 'string') {
		try {
			value = jsonParse(value);
		} catch {
			throw fail(all, 'not valid JSON');
		}
	}
	if (!Array.isArray(value)) throw fail(all, 'expected an array of lines');
	return value.map((raw: unknown, k) => {
		const at = (field: string) => source(ctx, `Lines (JSON)[${k}].${field}`, itemIndex);
		if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
			throw fail(source(ctx, `Lines (JSON)[${k}]`, itemIndex), 'a line must be an object');
		}
		const line = raw as IDataObject;
		if (!isBlank(line.article_id) && !isBlank(line.reference)) {
			throw invalid(at('article_id'), 'give "article_id" or "reference", not both');
		}
		if (isBlank(line.article_id) && isBlank(line.reference)) {
			throw fail(at('article_id'), 'each line needs "article_id" or "reference"');
		}
		const locator: Locator = isBlank(line.article_id)
			? { reference: toText(at('reference'), line.reference, 'articleReference') }
			: { id: toId(at('article_id'), line.article_id, 'article') };
		const quantity = either(line, 'quantite', 'quantity', at);
		const result: Line = {
			locator,
			label: `Lines (JSON)[${k}].${'id' in locator ? 'article_id' : 'reference'}`,
			quantite: toInteger(quantity.src, quantity.value, { min: 1 }),
		};
		const price = either(line, 'prix_ht', 'unit_price', at);
		if (!isBlank(price.value)) result.prix_ht = toInteger(price.src, price.value, { min: 0 });
		return result;
	});
}

const extraSpecs = fieldSpecs(properties, {
	date: { kind: 'date' },
	reference_externe: { kind: 'text', max: 'externalReference' },
});

export function prepare(this: IExecuteFunctions, itemIndex: number, erp: ItemErp): Prepared {
	const clientId = getLocatorId(this, itemIndex, clientLocator, 'client');
	const mode = toEnum(
		source(this, labelOf(properties, 'linesMode'), itemIndex),
		this.getNodeParameter('linesMode', itemIndex),
		['define', 'json'],
	);
	const lines =
		mode === 'json' ? readJsonLines(this, itemIndex) : readDefinedLines(this, itemIndex);
	if (lines.length === 0) {
		throw invalid(
			source(this, labelOf(properties, mode === 'json' ? 'linesJson' : 'lines'), itemIndex),
			'an invoice needs at least one line',
		);
	}
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const extra = checkFields(this, itemIndex, extraSpecs, additional);
	const { checkExisting: check } = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const checkLabel = source(this, labelOf(properties, 'options', 'checkExisting'), itemIndex);
	const checkExisting = check === undefined || toBoolean(checkLabel, check);
	return async () => {
		const articleIds = await resolveArticleIds(this, erp, lines);
		const body: IDataObject = {
			client_id: clientId,
			lignes: lines.map((line, k) => ({
				article_id: articleIds[k],
				quantite: line.quantite,
				...(line.prix_ht === undefined ? {} : { prix_ht: line.prix_ht }),
			})),
			...extra,
		};
		if (checkExisting && extra.reference_externe !== undefined) {
			return await issueOnce(this, erp, body);
		}
		return await erp.request({ method: 'POST', path: '/factures', body });
	};
}
