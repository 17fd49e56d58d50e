// The Path of the API Request operation, checked with the shared input checks.
import type { ValueSource } from '../../../shared/validation';
import { invalid, toText } from '../../../shared/validation';

/**
 * A path after the credential's Base URL (which ends in /v1): `/paie/bulletins` or `paie/bulletins`.
 * Refused: whatever could leave the Base URL (`.` and `..` segments also percent-encoded, which URL
 * parsers resolve like plain ones), a query string, spaces and control characters, a leading /v1.
 */
export function toApiPath(source: ValueSource, value: unknown): string {
	const text = toText(source, value, 'apiPath');
	const refuse = (problem: string, description?: string) => {
		throw invalid(source, problem, description);
	};
	const stay = 'The node only calls addresses under the Base URL of the credential.';
	if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
		refuse(
			'a full URL is not accepted, only the path after the Base URL (e.g. /paie/bulletins)',
			stay,
		);
	}
	if (text.startsWith('//'))
		refuse('a path starting with // is not accepted (it names a host)', stay);
	if (text.includes('\\')) refuse('a backslash is not accepted', stay);
	if (/[?#]/.test(text)) {
		refuse(
			'a query string is not accepted in the path: add each parameter under "Query Parameters"',
		);
	}
	if (
		/\s/.test(text) ||
		[...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)
	) {
		refuse('spaces and control characters are not accepted: percent-encode them (a space is %20)');
	}
	const path = text.startsWith('/') ? text : `/${text}`;
	const segments = path.slice(1).split('/');
	segments.forEach((segment, i) => {
		if (segment === '' && i < segments.length - 1)
			refuse('empty path segments (//) are not accepted');
		let decoded = '';
		try {
			decoded = decodeURIComponent(segment);
		} catch {
			refuse(`"${segment}" is not valid percent-encoding`);
		}
		if (decoded === '.' || decoded === '..') {
			refuse('"." and ".." segments are not accepted, percent-encoded or not', stay);
		}
		if (/[/\\]/.test(decoded))
			refuse('an encoded slash or backslash (%2F, %5C) is not accepted', stay);
	});
	if (path === '/') refuse('give the path of an endpoint, e.g. /paie/bulletins');
	if (/^\/v1(\/|$)/i.test(path)) {
		refuse('the Base URL already ends in /v1: give the path after it, e.g. /paie/bulletins');
	}
	return path;
}
