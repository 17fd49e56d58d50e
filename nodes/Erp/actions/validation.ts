// Input checks run before any request. Each failure is a NodeOperationError that names the
// parameter (as shown in the editor) and the item; nothing is rounded, trimmed into shape or guessed.
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** Where a value came from: the node, the parameter's display name and the input item. */
export interface ValueSource {
	node: INode;
	label: string;
	itemIndex: number;
}

export function invalid(
	source: ValueSource,
	problem: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(
		source.node,
		`Invalid value for "${source.label}": ${problem} [item ${source.itemIndex}]`,
		{ itemIndex: source.itemIndex, description },
	);
}

function show(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (typeof value === 'string') return `"${value}"`;
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

export function isBlank(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

/**
 * A whole number, given as a number or as a string of digits. `12.5`, `"12.5"`, `"12,5"`, `1e3`
 * as a string and non-finite values are refused: money and quantities are never truncated.
 */
export function toInteger(
	source: ValueSource,
	value: unknown,
	bounds: { min?: number; max?: number } = {},
): number {
	let n: number | undefined;
	if (typeof value === 'number') n = value;
	else if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) n = Number(value);
	if (n === undefined || !Number.isSafeInteger(n)) {
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

/** A non-empty string, trimmed. */
export function toText(source: ValueSource, value: unknown): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value !== 'string' || value.trim() === '') {
		throw invalid(source, `a non-empty text is required, got ${show(value)}`);
	}
	return value.trim();
}

export const ID_PREFIXES = {
	article: 'art',
	client: 'cli',
	invoice: 'fac',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

/** Regex (as a string, for resource locator validation) of an identifier of the given kind. */
export function idPattern(kind: IdKind): string {
	return `^${ID_PREFIXES[kind]}_[A-Za-z0-9_-]+$`;
}

/** An identifier such as `art_00000001`: required, and in the right form. */
export function toId(source: ValueSource, value: unknown, kind: IdKind): string {
	if (isBlank(value)) {
		throw invalid(source, `an ID is required (${ID_PREFIXES[kind]}_…)`);
	}
	const id = typeof value === 'string' ? value.trim() : value;
	if (typeof id !== 'string' || !new RegExp(idPattern(kind)).test(id)) {
		throw invalid(source, `expected an ID of the form ${ID_PREFIXES[kind]}_…, got ${show(value)}`);
	}
	return id;
}

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 is refused). */
export function toDate(source: ValueSource, value: unknown): string {
	const text = typeof value === 'string' ? value.trim() : value;
	const match = typeof text === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(text) : null;
	if (!match) {
		throw invalid(source, `expected a date YYYY-MM-DD, got ${show(value)}`);
	}
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	const date = new Date(Date.UTC(year, month - 1, day));
	if (
		date.getUTCFullYear() !== year ||
		date.getUTCMonth() !== month - 1 ||
		date.getUTCDate() !== day
	) {
		throw invalid(source, `${show(value)} is not a real date`);
	}
	return text as string;
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
	const email = typeof value === 'string' ? value.trim() : '';
	if (!EMAIL.test(email)) {
		throw invalid(source, `expected an email address, got ${show(value)}`);
	}
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
