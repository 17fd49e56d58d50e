/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// R5 bad input (issue 8). The matrix is derived from the ERP node's own description: every
// resource and operation, every parameter an operation shows (inside collections and fixed
// collections too), and for each the invalid kinds its type admits: wrong type, float for an
// integer, empty id, bad date, unknown enum value, oversized string. A new operation or field is
// covered without touching this file. Each case runs the node once through the harness: the
// execution must fail with a NodeOperationError whose message names the parameter, and the
// sandbox must receive no request. A valid baseline of each operation is run first (it must pass
// the node's checks), so that each case differs from a valid call by one value only.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';

import type {
	IDataObject,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	NodeParameterValueType,
} from 'n8n-workflow';

import { DEMO_KEYS, UNPACED, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { TestCredentials, loadNodeType, runWorkflow } from '../harness';
import { api, control } from '../trigger/helpers';
import { type Figure, atLeast, exactly, printFigures, printTable } from './common';

const SUITE = 'R5 bad input';
const ERP = 'n8n-nodes-erp.erp';
/** Far beyond any field of the API (the sandbox's longest text field takes 500 characters). */
const OVERSIZED = 'x'.repeat(100_000);
/** Parameters that choose what runs rather than carry a value. */
const ROUTING = new Set(['resource', 'operation', 'authentication']);

type Kind =
	| 'wrong type'
	| 'float for integer'
	| 'empty id'
	| 'bad date'
	| 'unknown enum'
	| 'oversized string';

interface Case {
	operation: string;
	/** Display path of the parameter, e.g. `Lines › Quantity`. */
	label: string;
	/** The display name the error must name. */
	displayName: string;
	kind: Kind;
	/** The parameters, the invalid value read by an expression from the input item's `value`. */
	parameters: INodeParameters;
	value: unknown;
}

/**
 * Invalid values reach a node through expressions (an earlier node's data, an AI agent): the
 * parameter reads `{{ $json.value }}`. Parameters that take no expression get the value itself.
 */
function asExpression(p: INodeProperties, value: unknown): unknown {
	if (p.noDataExpression) return value;
	if (p.type === 'resourceLocator')
		return { ...(value as IDataObject), value: '={{ $json.value }}' };
	return '={{ $json.value }}';
}

/** Real ids of the sandbox, for baselines' resource locators. */
const ids: Record<string, string> = {};

const isDate = (p: INodeProperties) => /date|YYYY-MM-DD/i.test(`${p.name} ${p.placeholder ?? ''}`);
const isEmail = (p: INodeProperties) => /email/i.test(p.name);
/**
 * An integer field: every number of this API is (cents, basis points, quantities, counts), except
 * a duration in seconds or a number that declares decimals; and a string documented as a whole
 * number (an optional price in cents).
 */
const isInteger = (p: INodeProperties) =>
	(p.type === 'number' &&
		!((p.typeOptions?.numberPrecision ?? 0) > 0) &&
		!/\(Seconds\)/.test(p.displayName)) ||
	(p.type === 'string' &&
		/whole number|in cents|integer/i.test(`${p.description ?? ''} ${p.hint ?? ''}`));

/** The resource-locator kind from its name (`articleId` -> article). */
function locatorId(p: INodeProperties): string {
	const kind = p.name.replace(/Id$/, '');
	const id = ids[kind];
	if (!id) throw new Error(`no sandbox id known for the locator ${p.name}`);
	return id;
}

let unique = 0;

/** A valid value for a parameter, derived from its type (and name where the type says too little). */
function validValue(p: INodeProperties): NodeParameterValueType | INodeParameters {
	switch (p.type) {
		case 'resourceLocator':
			return { __rl: true, mode: 'id', value: locatorId(p) };
		case 'options':
			return p.default !== '' && p.default !== undefined
				? (p.default as string)
				: String((p.options?.[0] as { value: string })?.value ?? '');
		case 'multiOptions':
			return p.default as string[];
		case 'number':
			return typeof p.default === 'number' && Number.isInteger(p.default) && p.default >= 1
				? p.default
				: 1;
		case 'boolean':
			return p.default as boolean;
		case 'string':
			if (isDate(p)) return '2026-01-15';
			if (isEmail(p)) return `r5-${++unique}@example.com`;
			if (p.required) return `R5-${p.name}-${++unique}`;
			return p.default as string;
		case 'collection':
			return {};
		case 'fixedCollection': {
			const value: IDataObject = {};
			for (const group of (p.options ?? []) as INodePropertyCollection[]) {
				const entry = Object.fromEntries(
					group.values.map((v) => [v.name, validValue(v)]),
				) as IDataObject;
				value[group.name] = p.typeOptions?.multipleValues ? [entry] : entry;
			}
			return value as INodeParameters;
		}
		default:
			return p.default as NodeParameterValueType;
	}
}

/**
 * The invalid values a parameter's type admits. An optional parameter (an option of a
 * collection) left empty is simply not set, so "empty id" applies to required ones only.
 */
function invalidValues(p: INodeProperties, optional = false): Array<[Kind, unknown]> {
	const out: Array<[Kind, unknown]> = [];
	switch (p.type) {
		case 'number':
			out.push(['wrong type', 'twelve']);
			if (isInteger(p)) out.push(['float for integer', 12.5]);
			break;
		case 'string':
			out.push(['wrong type', { not: 'a string' }]);
			if (isInteger(p)) out.push(['float for integer', '12.5']);
			if (isDate(p)) out.push(['bad date', '2026-02-30']);
			if (!isInteger(p) && !isDate(p)) out.push(['oversized string', OVERSIZED]);
			break;
		case 'resourceLocator':
			if (!optional) out.push(['empty id', { __rl: true, mode: 'id', value: '' }]);
			out.push(['wrong type', { __rl: true, mode: 'id', value: 12345 }]);
			break;
		case 'options':
			if (!p.typeOptions?.loadOptionsMethod) out.push(['unknown enum', 'not_an_option']);
			else out.push(['wrong type', { not: 'an id' }]);
			break;
		case 'multiOptions':
			out.push(['unknown enum', ['not_an_option']]);
			break;
		case 'boolean':
			out.push(['wrong type', 'perhaps']);
			break;
		case 'json':
			out.push(['wrong type', '{ not json']);
			break;
	}
	return out;
}

/** Whether `p` is shown for the resource and operation (ignoring conditions on other parameters). */
function shownFor(p: INodeProperties, resource: string, operation: string): boolean {
	const show = p.displayOptions?.show ?? {};
	const matches = (key: string, value: string) =>
		!show[key] || (show[key] as unknown[]).includes(value);
	return matches('resource', resource) && matches('operation', operation);
}

/** Conditions on other parameters that must hold for `p` to be shown (`returnAll: false`...). */
function conditions(p: INodeProperties): IDataObject {
	const out: IDataObject = {};
	for (const [key, values] of Object.entries(p.displayOptions?.show ?? {})) {
		if (!ROUTING.has(key) && Array.isArray(values) && values.length > 0)
			out[key] = values[0] as string;
	}
	return out;
}

/** Every resource/operation pair of the node, from its description. */
function operationsOf(
	properties: INodeProperties[],
): Array<{ resource: string; operation: string }> {
	const out: Array<{ resource: string; operation: string }> = [];
	for (const p of properties.filter((q) => q.name === 'operation')) {
		for (const resource of (p.displayOptions?.show?.resource ?? []) as string[]) {
			for (const option of (p.options ?? []) as Array<{ value: string }>)
				out.push({ resource, operation: option.value });
		}
	}
	return out;
}

function baselineOf(
	properties: INodeProperties[],
	resource: string,
	operation: string,
): INodeParameters {
	const parameters: INodeParameters = { resource, operation };
	for (const p of properties) {
		if (ROUTING.has(p.name) || p.type === 'notice' || !shownFor(p, resource, operation)) continue;
		if (parameters[p.name] === undefined)
			parameters[p.name] = validValue(p) as NodeParameterValueType;
	}
	return parameters;
}

/**
 * A baseline that passes the node's checks: the derived one, and where the node asks for at least
 * one field of a collection ("Update Fields"), its first option with a valid value. Runs it.
 */
async function validBaseline(
	properties: INodeProperties[],
	resource: string,
	operation: string,
): Promise<INodeParameters> {
	const parameters = baselineOf(properties, resource, operation);
	for (let attempt = 0; ; attempt++) {
		const result = await runWorkflow({
			nodes: [{ name: 'ERP', type: ERP, parameters }],
			credentials,
			workflowId: `r5-baseline-${resource}-${operation}`,
		});
		if (!isValidationError(result.error)) return parameters;
		const named = properties.find(
			(p) =>
				p.type === 'collection' &&
				shownFor(p, resource, operation) &&
				result.error?.message.includes(`"${p.displayName}"`),
		);
		const option = ((named?.options ?? []) as INodeProperties[]).find((o) => {
			const value = validValue(o);
			return value !== '' && value !== undefined;
		});
		assert.ok(
			named && option && attempt < 3,
			`the baseline of ${resource}.${operation} is refused: ${result.error?.message}`,
		);
		parameters[named.name] = { [option.name]: validValue(option) } as INodeParameters;
	}
}

/** Every case of one operation: top-level parameters, collection options and fixed-collection values. */
function casesOf(
	properties: INodeProperties[],
	baseline: INodeParameters,
	resource: string,
	operation: string,
): Case[] {
	const name = `${resource}.${operation}`;
	const cases: Case[] = [];
	const add = (
		displayName: string,
		label: string,
		p: INodeProperties,
		put: (value: unknown) => INodeParameters,
		optional = false,
	) => {
		for (const [kind, value] of invalidValues(p, optional)) {
			cases.push({
				operation: name,
				label,
				displayName,
				kind,
				parameters: put(asExpression(p, value)),
				value,
			});
		}
	};
	for (const p of properties) {
		if (ROUTING.has(p.name) || p.type === 'notice' || !shownFor(p, resource, operation)) continue;
		const base = { ...baseline, ...conditions(p) } as INodeParameters;
		if (p.type === 'collection') {
			for (const option of (p.options ?? []) as INodeProperties[]) {
				// An option shown only with a sibling's value (Custom Idempotency Key needs Custom) gets it.
				add(
					option.displayName,
					`${p.displayName} › ${option.displayName}`,
					option,
					(value) => ({
						...base,
						[p.name]: { ...conditions(option), [option.name]: value } as INodeParameters,
					}),
					true,
				);
			}
		} else if (p.type === 'fixedCollection') {
			for (const group of (p.options ?? []) as INodePropertyCollection[]) {
				for (const field of group.values) {
					add(field.displayName, `${p.displayName} › ${field.displayName}`, field, (value) => {
						const entry = {
							...Object.fromEntries(group.values.map((v) => [v.name, validValue(v)])),
							[field.name]: value,
						};
						return {
							...base,
							[p.name]: {
								[group.name]: p.typeOptions?.multipleValues ? [entry] : entry,
							} as INodeParameters,
						};
					});
				}
			}
		} else {
			add(p.displayName, p.displayName, p, (value) => ({
				...base,
				[p.name]: value as NodeParameterValueType,
			}));
		}
	}
	return cases;
}

let sandbox: SandboxHandle;
let credentials: TestCredentials;
const figures: Figure[] = [];

const sandboxRequests = async (): Promise<number> =>
	(await control(sandbox, 'GET', '/stats')).body.requests as number;

beforeAll(async () => {
	// A limit the nodes read in the headers, too high to refuse anything: no pacing in the way.
	sandbox = await startSandbox({ port: 0, rateLimit: UNPACED, articles: 20 });
	credentials = new TestCredentials({
		erpApi: { apiKey: DEMO_KEYS.full, environment: 'sandbox', baseUrl: sandbox.baseUrl },
	});
	for (const [kind, path] of [
		['article', '/articles'],
		['client', '/clients'],
		['invoice', '/factures'],
	]) {
		ids[kind] = String((await api(sandbox, 'GET', `${path}?limit=1`)).body.data[0].id);
	}
});

afterAll(async () => {
	await sandbox?.close();
	printFigures(SUITE, figures);
});

const isValidationError = (error: unknown) =>
	(error as Error | undefined)?.name === 'NodeOperationError' &&
	/Invalid value for/.test((error as Error).message);

describe(SUITE, () => {
	it('every operation x every invalid parameter kind: a NodeOperationError naming the parameter, and no request', async () => {
		const { properties } = loadNodeType(ERP).description;
		const operations = operationsOf(properties);
		assert.ok(
			operations.length >= 15,
			`only ${operations.length} operations found in the description`,
		);

		// Baselines first: each must pass the node's checks (requests are fine here).
		const cases: Case[] = [];
		for (const { resource, operation } of operations) {
			const baseline = await validBaseline(properties, resource, operation);
			cases.push(...casesOf(properties, baseline, resource, operation));
		}

		const failures: Array<{ c: Case; problem: string }> = [];
		const byKind = new Map<Kind, { cases: number; ok: number }>();
		let requestsSent = 0;
		for (const c of cases) {
			const before = await sandboxRequests();
			const value =
				c.kind === 'empty id' ||
				(c.kind === 'wrong type' &&
					typeof c.value === 'object' &&
					c.value !== null &&
					'__rl' in c.value)
					? (c.value as IDataObject).value
					: c.value;
			const result = await runWorkflow({
				nodes: [{ name: 'ERP', type: ERP, parameters: c.parameters }],
				input: [{ value: value as IDataObject[string] }],
				credentials,
				workflowId: `r5-${c.operation}`,
				// As in production: n8n's editor-only parameter-issue check does not stand in for the node's.
				mode: 'trigger',
			});
			const sent = (await sandboxRequests()) - before;
			requestsSent += sent;
			const error = result.error;
			let problem: string | undefined;
			if (result.success) problem = 'accepted';
			else if (error?.name !== 'NodeOperationError')
				problem = `${error?.name}: ${error?.message.slice(0, 120)}`;
			else if (!error.message.includes(c.displayName))
				problem = `message does not name "${c.displayName}": ${error.message.slice(0, 120)}`;
			if (sent > 0) problem = `${problem ? `${problem}; ` : ''}${sent} request(s) sent`;
			const entry = byKind.get(c.kind) ?? { cases: 0, ok: 0 };
			entry.cases++;
			if (problem) failures.push({ c, problem });
			else entry.ok++;
			byKind.set(c.kind, entry);
		}

		printTable([
			['invalid kind', 'cases', 'refused as required'],
			...[...byKind].map(([kind, { cases: n, ok }]) => [kind, String(n), String(ok)]),
		]);
		if (failures.length) {
			printTable(
				[
					['operation', 'parameter', 'kind', 'outcome'],
					...failures.map(({ c, problem }) => [c.operation, c.label, c.kind, problem]),
				],
				`Cases not refused as required (${failures.length}):`,
			);
		}
		figures.push(
			atLeast(
				SUITE,
				`cases run (${operations.length} operations, ${byKind.size} invalid kinds)`,
				cases.length,
				100,
			),
			exactly(
				SUITE,
				'cases not refused with a NodeOperationError naming the parameter',
				failures.length,
				0,
			),
			exactly(SUITE, 'requests the sandbox received during the matrix', requestsSent, 0),
		);
		for (const kind of [
			'wrong type',
			'float for integer',
			'empty id',
			'bad date',
			'unknown enum',
			'oversized string',
		] as Kind[]) {
			assert.ok((byKind.get(kind)?.cases ?? 0) > 0, `no case of kind "${kind}" was derived`);
		}
		assert.equal(requestsSent, 0, 'the sandbox received requests for invalid input');
		assert.deepEqual(
			failures.map(({ c, problem }) => `${c.operation} ${c.label} (${c.kind}): ${problem}`),
			[],
		);
	});
});
