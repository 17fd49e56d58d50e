// The input checks of operations, request options and trigger options: a failure is a
// NodeOperationError before any request, `Invalid value for "<label>": <problem> [item N]`, the
// label as the editor shows it (`labelOf`). Nothing is rounded, trimmed into shape or guessed.
import type { INode, INodeProperties, INodePropertyCollection } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** Where a value came from: node, parameter label, input item (none for a trigger). */
export interface ValueSource {
	node: INode;
	label: string;
	itemIndex?: number;
}

type Described = INodeProperties | INodePropertyCollection;

/** The parameter or option `name` among `properties`, or among the options of their collections. */
function findProperty(properties: readonly Described[], name: string): INodeProperties | undefined {
	const own = properties.find((p) => 'name' in p && p.name === name && 'type' in p);
	if (own) return own as INodeProperties;
	for (const property of properties) {
		const nested =
			'values' in property ? property.values : 'options' in property ? property.options : undefined;
		if (Array.isArray(nested) && nested.every((o) => typeof o === 'object' && 'displayName' in o)) {
			const found = findProperty(nested as Described[], name);
			if (found) return found;
		}
	}
	return undefined;
}

/** Editor label: (p, 'requestOptions', 'idempotency') → "Request Options › Idempotency Key". */
export function labelOf(properties: readonly Described[], ...names: string[]): string {
	const labels: string[] = [];
	let scope = properties;
	for (const name of names) {
		const property = findProperty(scope, name);
		if (!property) throw new Error(`No parameter "${names.join('.')}" in the description`);
		labels.push(property.displayName);
		scope = (property.options ?? []) as Described[];
	}
	return labels.join(' › ');
}

export function invalid(source: ValueSource, problem: string, description?: string) {
	// No item number for a trigger (no item) nor for a "…Tool" node (an AI Agent sends one item).
	const where =
		source.itemIndex === undefined || String(source.node.type).endsWith('Tool')
			? ''
			: ` [item ${source.itemIndex}]`;
	const message = `Invalid value for "${source.label}": ${problem}${where}`;
	return new NodeOperationError(source.node, message, { itemIndex: source.itemIndex, description });
}

/** The value as shown in a message, long values cut. */
export function show(value: unknown): string {
	if (value === undefined) return 'nothing';
	let text: string;
	try {
		text = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
	} catch {
		text = String(value);
	}
	return text.length > 60 ? `${text.slice(0, 60)}… (${text.length} characters)` : text;
}

export function isBlank(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

/** A whole number or a string of digits; `12.5`, `"12,5"` or `"1e3"` are refused, not rounded. */
export function toInteger(
	source: ValueSource,
	value: unknown,
	bounds: { min?: number; max?: number } = {},
): number {
	const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
		throw invalid(
			source,
			`expected a whole number, got ${show(value)}`,
			'Amounts are integers in cents and quantities are whole units; the node never rounds a value.',
		);
	}
	if (bounds.min !== undefined && n < bounds.min) {
		throw invalid(source, `must be at least ${bounds.min}, got ${n}`);
	}
	if (bounds.max !== undefined && n > bounds.max) {
		throw invalid(source, `must be at most ${bounds.max}, got ${n}`);
	}
	return n;
}

/** Longest text sent, in characters: docs/api-contract.md's (the specification states none). */
export const MAX_LENGTH = {
	articleReference: 100, // an article's `reference`, also where an article is given by reference
	designation: 500, // article
	clientName: 200, // client `nom`
	email: 200,
	phone: 50, // client `telephone`
	address: 500, // client `adresse`
	externalReference: 200, // invoice `reference_externe`
	settlementReference: 200,
	filter: 200, // free-text list filters: `q`, `compte`
	id: 100, // any identifier: art_…, cli_…, fac_…, a category
	queryParameterName: 100, // Options › Query Parameters
	queryParameterValue: 2000,
	apiPath: 2000, // the API Request operation's path
} as const;
export type TextLimit = keyof typeof MAX_LENGTH;

function checkLength(source: ValueSource, text: string, limit: TextLimit): string {
	const max = MAX_LENGTH[limit];
	if (text.length > max) throw invalid(source, `at most ${max} characters (got ${text.length})`);
	return text;
}

/** A string, or a whole number (order 1042) as digits; never "12.5", "true", "[object Object]". */
function asText(source: ValueSource, value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
	throw invalid(source, `expected a text, got ${show(value)}`);
}

/** A non-empty text, trimmed, of at most `MAX_LENGTH[limit]` characters. */
export function toText(source: ValueSource, value: unknown, limit: TextLimit): string {
	if (isBlank(value)) throw invalid(source, `a non-empty text is required, got ${show(value)}`);
	return checkLength(source, asText(source, value).trim(), limit);
}

/** Text the API accepts empty (phone, address): as given, `null` when none; else as `toText`. */
export function toOptionalText(source: ValueSource, value: unknown, limit: TextLimit) {
	if (value === undefined || value === null) return null;
	return checkLength(source, asText(source, value), limit);
}

/** true/false, or "true"/"false" in any case (as n8n's validateType 'boolean'); not "yes", 1. */
export function toBoolean(source: ValueSource, value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string' && /^(true|false)$/i.test(value)) {
		return value.toLowerCase() === 'true';
	}
	throw invalid(source, `expected true or false, got ${show(value)}`);
}

export const ID_PREFIXES = { article: 'art', client: 'cli', invoice: 'fac' } as const;
export type IdKind = keyof typeof ID_PREFIXES;

/** Regex (as a string, for resource locator validation) of an identifier of the given kind. */
export function idPattern(kind: IdKind): string {
	return `^${ID_PREFIXES[kind]}_[A-Za-z0-9_-]+$`;
}

/** An identifier such as `art_00000001`: required, and in the right form. */
export function toId(source: ValueSource, value: unknown, kind: IdKind): string {
	if (isBlank(value)) throw invalid(source, `an ID is required (${ID_PREFIXES[kind]}_…)`);
	const id = typeof value === 'string' ? checkLength(source, value.trim(), 'id') : value;
	if (typeof id !== 'string' || !new RegExp(idPattern(kind)).test(id)) {
		throw invalid(source, `expected an ID of the form ${ID_PREFIXES[kind]}_…, got ${show(value)}`);
	}
	return id;
}

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 is refused). */
export function toDate(source: ValueSource, value: unknown): string {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) {
		throw invalid(source, `expected a date YYYY-MM-DD, got ${show(value)}`);
	}
	const [year, month, day] = text.split('-').map(Number);
	// Date.UTC rolls an impossible day over (February 30 to March 2), and years under 100 to 19xx.
	if (new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10) !== text) {
		throw invalid(source, `${show(value)} is not a real date`);
	}
	return text;
}

/** Checks that a start date is not after an end date (both already valid `YYYY-MM-DD`). */
export function checkDateRange(source: ValueSource, start?: string, end?: string): void {
	if (start !== undefined && end !== undefined && start > end) {
		throw invalid(source, `the start date ${start} is after the end date ${end}`);
	}
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email address (simple form check; the server has the last word). */
export function toEmail(source: ValueSource, value: unknown): string {
	const email = typeof value === 'string' ? checkLength(source, value.trim(), 'email') : '';
	if (!EMAIL.test(email)) throw invalid(source, `expected an email address, got ${show(value)}`);
	return email;
}

/** One of the allowed values, exactly. */
export function toEnum<T extends string>(
	source: ValueSource,
	value: unknown,
	allowed: readonly T[],
): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw invalid(source, `expected one of ${allowed.join(', ')}, got ${show(value)}`);
	}
	return value as T;
}
