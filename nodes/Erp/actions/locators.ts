// Resource locators read into an ID or an article reference, resolved to an ID when sent.
import type {
	IExecuteFunctions,
	INodeParameterResourceLocator,
	INodeProperties,
} from 'n8n-workflow';

import type { IdKind, ValueSource } from '../../shared/validation';
import { invalid, toId, toText } from '../../shared/validation';
import type { ItemErp } from './erp';

export type Locator = { id: string } | { reference: string };

/** Whether `raw` has the shape of a resource locator's value (`{ mode, value }`). */
export function isLocatorValue(raw: unknown): raw is INodeParameterResourceLocator {
	return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'mode' in raw;
}

/**
 * A resource locator checked (a plain value, as an AI tool or an expression may give, is an ID);
 * an article locator in "By Reference" mode gives the reference, resolved later.
 */
export function readLocator(src: ValueSource, raw: unknown, kind: IdKind): Locator {
	const locator = isLocatorValue(raw) ? raw : { mode: 'id', value: raw };
	if (locator.mode === 'reference' && kind === 'article') {
		return { reference: toText(src, locator.value, 'articleReference') };
	}
	return { id: toId(src, locator.value, kind) };
}

/** The locator parameter `property` of item `itemIndex`, checked and labelled with its display name. */
export function getLocator(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: INodeProperties,
	kind: IdKind,
): Locator {
	const src = { node: ctx.getNode(), label: property.displayName, itemIndex };
	return readLocator(src, ctx.getNodeParameter(property.name, itemIndex), kind);
}

/** The ID behind a client or invoice locator (they have no reference mode). */
export function getLocatorId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: INodeProperties,
	kind: 'client' | 'invoice',
): string {
	return (getLocator(ctx, itemIndex, property, kind) as { id: string }).id;
}

export async function findArticleByReference(erp: ItemErp, reference: string) {
	return await erp.find('/articles', { reference }, (article) => article.reference === reference);
}

/** The article IDs of `locators`, each distinct reference looked up once (unknown: an error). */
export async function resolveArticleIds(
	ctx: IExecuteFunctions,
	erp: ItemErp,
	locators: Array<{ locator: Locator; label: string }>,
): Promise<string[]> {
	const byReference = new Map<string, string>();
	for (const { locator, label } of locators) {
		if (!('reference' in locator) || byReference.has(locator.reference)) continue;
		const article = await findArticleByReference(erp, locator.reference);
		if (!article) {
			throw invalid(
				{ node: ctx.getNode(), label, itemIndex: erp.itemIndex },
				`no article has the reference "${locator.reference}"`,
				'References are matched exactly (case and spaces included).',
			);
		}
		byReference.set(locator.reference, String(article.id));
	}
	return locators.map(({ locator }) =>
		'id' in locator ? locator.id : (byReference.get(locator.reference) as string),
	);
}
