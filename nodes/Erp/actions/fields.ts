// Parameters read into checked values (FieldSpec, labelled by display name): a body or filters.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { IdKind, TextLimit, ValueSource } from '../../shared/validation';
import {
	invalid,
	labelOf,
	toDate,
	toEmail,
	toEnum,
	toInteger,
	toOptionalText,
	toText,
} from '../../shared/validation';
import { readLocator } from './locators';

export const isRecord = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

export function source(ctx: IExecuteFunctions, label: string, itemIndex: number): ValueSource {
	return { node: ctx.getNode(), label, itemIndex };
}

/**
 * How one parameter is checked. `api` is the API field or filter it fills when that differs from
 * the parameter's name. Text kinds name their length limit (`MAX_LENGTH` in shared/validation.ts).
 */
export type FieldCheck = { api?: string } & (
	| { kind: 'text' | 'optionalText'; max: TextLimit }
	| { kind: 'email' | 'date' }
	| { kind: 'integer'; min?: number; max?: number }
	| { kind: 'enum'; values: readonly string[] }
	| { kind: 'locator'; idKind: IdKind }
);

/** A check with its label, the parameter's display name. */
export type FieldSpec = FieldCheck & { label: string };

/** The checks of `checks`, each labelled with the display name of its parameter in `properties`. */
export function fieldSpecs<K extends string>(
	properties: readonly INodeProperties[],
	checks: Record<K, FieldCheck>,
): Record<K, FieldSpec> {
	const entries = Object.entries<FieldCheck>(checks);
	return Object.fromEntries(
		entries.map(([key, check]) => [key, { ...check, label: labelOf(properties, key) }]),
	) as Record<K, FieldSpec>;
}

function checkField(src: ValueSource, spec: FieldSpec, value: unknown): IDataObject[string] {
	switch (spec.kind) {
		case 'text':
			return toText(src, value, spec.max);
		case 'optionalText':
			return toOptionalText(src, value, spec.max);
		case 'email':
			return toEmail(src, value);
		case 'date':
			return toDate(src, value);
		case 'integer':
			return toInteger(src, value, spec);
		case 'enum':
			return toEnum(src, value, spec.values);
		case 'locator': {
			// An ID is final; an article reference is resolved when the request step runs.
			const locator = readLocator(src, value, spec.idKind);
			return 'id' in locator ? locator.id : { reference: locator.reference, label: src.label };
		}
	}
}

/** `values` checked by `specs`, under API names; a name with no spec is refused, not dropped. */
export function checkFields(
	ctx: IExecuteFunctions,
	itemIndex: number,
	specs: Record<string, FieldSpec>,
	values: IDataObject,
): IDataObject {
	const body: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		const spec = specs[key];
		if (!spec) throw invalid(source(ctx, key, itemIndex), 'this field is not supported here');
		body[spec.api ?? key] = checkField(source(ctx, spec.label, itemIndex), spec, value);
	}
	return body;
}
