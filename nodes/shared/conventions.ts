// Custom API Conventions (credentialFields.ts), read and checked: `list` for the list reader
// (transport/pagination.ts), `signature` and `event` for the trigger. Off (the default), every
// value is docs/api-contract.md's, whatever is stored.
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';

import { apiConventionProperties } from './credentialFields';
import { invalid, labelOf, show, toEnum } from './validation';

/** A path in a JSON answer: key names from the top, such as ['pagination', 'next_cursor']. */
type JsonPath = string[];

export type SignatureScheme =
	| { kind: 'standardWebhooks' }
	| {
			kind: 'bodyHmac';
			header: string; // lower case, as every header name here
			algorithm: 'sha256' | 'sha512' | 'sha1';
			encoding: 'hex' | 'base64';
			prefix: string;
			timestampHeader?: string;
	  };

/** The value at `path` in `value`, or undefined when a step is missing or not an object. */
export function valueAt(value: unknown, path: JsonPath): unknown {
	let current = value;
	for (const key of path) {
		if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
		if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}

const JSON_PATH = /^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$/; // names separated by dots
const EVENT_TYPE = /^[A-Za-z0-9_.-]{1,100}$/; // as the ERP names them: stock.bas
const QUERY_NAME = /^[A-Za-z0-9_.\-[\]]+$/; // letters, digits, _ - . and brackets: page[after]
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/; // an HTTP header name (RFC 9110 token)
const MAX_NAME_LENGTH = 100;

/** A setting that cannot work throws an error naming it, before any request or on its delivery. */
export function readConventions(
	credentials: ICredentialDataDecryptedObject,
	node: INode,
	itemIndex?: number,
) {
	const stored: ICredentialDataDecryptedObject =
		credentials.customConventions === true ? credentials : {};
	const at = (name: string) => ({
		node,
		label: `ERP credential › ${labelOf(apiConventionProperties, name)}`,
		itemIndex,
	});
	const raw = (name: string): unknown =>
		stored[name] ?? apiConventionProperties.find((property) => property.name === name)?.default;
	const text = (name: string): string => {
		const value = raw(name);
		if (typeof value !== 'string') throw invalid(at(name), `expected a text, got ${show(value)}`);
		return value.trim();
	};
	const named = (name: string, pattern: RegExp, what: string): string => {
		const value = text(name);
		if (value === '') throw invalid(at(name), `a ${what} is required, got ${show(value)}`);
		if (value.length > MAX_NAME_LENGTH || !pattern.test(value)) {
			throw invalid(at(name), `not a valid ${what}: ${show(value)}`);
		}
		return value;
	};
	const optionalHeader = (name: string): string | undefined =>
		text(name) === '' ? undefined : named(name, HEADER_NAME, 'header name').toLowerCase();
	const isPath = (value: string) => value.length <= 200 && JSON_PATH.test(value);
	const path = (name: string): JsonPath => {
		const value = text(name);
		if (!isPath(value)) {
			throw invalid(
				at(name),
				`expected names separated by dots, such as pagination.next_cursor, got ${show(value)}`,
			);
		}
		return value.split('.');
	};
	const oneOf = <T extends string>(name: string, allowed: readonly T[]): T =>
		toEnum(at(name), raw(name), allowed);

	const list = {
		cursorParam: named('cursorParam', QUERY_NAME, 'query parameter name'),
		pageSizeParam: named('pageSizeParam', QUERY_NAME, 'query parameter name'),
		itemsPath: path('itemsPath'),
		nextCursorPath: path('nextCursorPath'),
	};
	if (list.cursorParam === list.pageSizeParam) {
		throw invalid(
			at('pageSizeParam'),
			`must differ from the cursor's, both are ${show(list.cursorParam)}`,
		);
	}

	let signature: SignatureScheme = { kind: 'standardWebhooks' };
	if (oneOf('signatureScheme', ['standardWebhooks', 'bodyHmac']) === 'bodyHmac') {
		const prefix = text('signaturePrefix');
		if (prefix.length > 50 || !/^[\x21-\x7e]*$/.test(prefix)) {
			throw invalid(
				at('signaturePrefix'),
				`expected up to 50 visible ASCII characters, got ${show(prefix)}`,
			);
		}
		signature = {
			kind: 'bodyHmac',
			header: named('signatureHeader', HEADER_NAME, 'header name').toLowerCase(),
			algorithm: oneOf('signatureAlgorithm', ['sha256', 'sha512', 'sha1']),
			encoding: oneOf('signatureEncoding', ['hex', 'base64']),
			prefix,
			timestampHeader: optionalHeader('timestampHeader'),
		};
	}

	const identityPaths = (name: string): Record<string, JsonPath> => {
		const paths: Record<string, JsonPath> = {};
		for (const pair of text(name).split(',')) {
			if (pair.trim() === '') continue;
			const [type, where, ...rest] = pair.split('=').map((part) => part.trim());
			if (rest.length > 0 || !EVENT_TYPE.test(type) || where === undefined || !isPath(where)) {
				throw invalid(
					at(name),
					`expected type=path pairs separated by commas, such as stock.bas=mouvement_id, got ${show(pair.trim())}`,
				);
			}
			if (Object.prototype.hasOwnProperty.call(paths, type)) {
				throw invalid(at(name), `${type} is given twice`);
			}
			paths[type] = where.split('.');
		}
		return paths;
	};
	const event = {
		typePath: path('eventTypePath'),
		idPath: path('eventIdPath'),
		dataPath: path('eventDataPath'),
		// Lower case; when set, the type is read from this header instead of the body.
		typeHeader: optionalHeader('eventTypeHeader'),
		// Per event type, where the event's identity is in its data (the ERP Trigger's catch-up).
		identityPaths: identityPaths('eventIdentityPaths'),
	};
	return { list, signature, event };
}

export type ApiConventions = ReturnType<typeof readConventions>;
export type EventConventions = ApiConventions['event'];
