// The ERP Polling Trigger's parameters, read and checked before any request (shared input checks).
import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { invalid, labelOf, show, toEnum, toInteger } from '../shared/validation';
import { WATCH_OPTIONS, watchNamed } from '../shared/watches';

export const DEFAULT_MAX_PAGES = 10;
export const MAX_PAGES_CAP = 100;

/** The watch, its options, Start From, `since` (ISO time, for a date) and Max Pages per Poll. */
export function readSettings(context: IPollFunctions, properties: INodeProperties[]) {
	const at = (...names: string[]) => ({
		node: context.getNode(),
		label: labelOf(properties, ...names),
	});
	const name = context.getNodeParameter('watch', 'lowStock');
	const watch = watchNamed(name);
	if (watch === undefined) {
		throw invalid(
			at('watch'),
			`expected one of ${WATCH_OPTIONS.map((o) => o.name).join(', ')}, got ${show(name)}`,
		);
	}
	const watchOptions = watch.readOptions({
		value: (name, fallback) => context.getNodeParameter(name, fallback),
		at,
	});
	const options = (context.getNodeParameter('options', {}) ?? {}) as IDataObject;
	const startFrom = toEnum(at('options', 'startFrom'), options.startFrom ?? 'now', [
		'now',
		'beginning',
		'date',
	] as const);
	let since: string | undefined;
	if (startFrom === 'date') {
		const raw = options.startDate;
		const time = typeof raw === 'string' && raw.trim() !== '' ? new Date(raw) : undefined;
		if (time === undefined || Number.isNaN(time.getTime())) {
			throw invalid(at('options', 'startDate'), `expected a date and time, got ${show(raw)}`);
		}
		since = time.toISOString();
	}
	const maxPages = toInteger(at('options', 'maxPages'), options.maxPages ?? DEFAULT_MAX_PAGES, {
		min: 1,
		max: MAX_PAGES_CAP,
	});
	return { watch, options: watchOptions, startFrom, since, maxPages };
}

export type PollSettings = ReturnType<typeof readSettings>;
