/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// docs/performance.md, the one page of performance figures: the latest measurement of each figure,
// with its target, date, commit and machine. `npm run bench` calls publish() after every run: the
// figures it measured replace their earlier measurement in bench/published.json, the others stay,
// and the page is written again from that file and bench/performance-notes.md.
//
//   npx tsx bench/page.ts [bench/results/<run>.json]   publishes a saved run (or only rewrites the page)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { figureRows, markdownTable, runLine } from './report';
import type { BenchResults } from './report';

const ROOT = path.join(__dirname, '..');
export const PUBLISHED_FILE = path.join(__dirname, 'published.json');
export const PAGE_FILE = path.join(ROOT, 'docs', 'performance.md');
const NOTES_FILE = path.join(__dirname, 'performance-notes.md');

/** Each figure: its key in BenchResults and its section title. */
const FIGURES = {
	P1: { key: 'p1', title: 'P1 · pagination overhead' },
	P3: { key: 'p3', title: 'P3 · rate-ceiling use' },
	P4: { key: 'p4', title: 'P4 · memory' },
	P5: { key: 'p5', title: 'P5 · webhook checking' },
	P6: { key: 'p6', title: 'P6 · many executions, one rate budget' },
	P8: { key: 'p8', title: 'P8 · a burst of webhook deliveries' },
	test: { key: 'testTime', title: 'The whole `npm test` suite' },
} as const;
type Figure = keyof typeof FIGURES;

type Run = Pick<BenchResults, 'startedAt' | 'machine' | 'options'>;
/** The latest measurement of each figure, with the run it came from. */
export type Published = Partial<Record<Figure, { run: Run; result: unknown }>>;

export function readPublished(file = PUBLISHED_FILE): Published {
	return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Published) : {};
}

/** `published` with the figures `results` measured (a crashed figure keeps its earlier one). */
export function merge(published: Published, results: BenchResults): Published {
	const run: Run = {
		startedAt: results.startedAt,
		machine: results.machine,
		options: results.options,
	};
	const next: Published = { ...published };
	for (const [figure, { key }] of Object.entries(FIGURES) as Array<
		[Figure, (typeof FIGURES)[Figure]]
	>) {
		if (results[key] !== undefined && results.errors[figure] === undefined)
			next[figure] = { run, result: results[key] };
	}
	return next;
}

export function renderPage(published: Published, notes: string): string {
	const lines = [
		'# Performance',
		'',
		'<!-- Written by `npm run bench` (bench/page.ts) from bench/published.json and',
		'     bench/performance-notes.md. Do not edit: run the bench, or edit the notes. -->',
		'',
		'Every benchmark figure of the pack, as `npm run bench` last measured it, next to its target.',
		'Each section says which run it comes from: date, commit, machine, and whether it was a quick',
		'run (`--quick`: fewer repetitions, smaller sizes). `npm run bench -- --only P1,P5` measures',
		'some figures again and leaves the others as they were. Benchmarks print figures and never',
		'fail a build; the machines are shared, so compare ratios rather than absolute times. How each',
		'figure is measured: [bench/README.md](../bench/README.md). Median (min–max) over the runs;',
		'contenders alternated within each figure.',
	];
	for (const [figure, { key, title }] of Object.entries(FIGURES) as Array<
		[Figure, (typeof FIGURES)[Figure]]
	>) {
		lines.push('', `## ${title}`, '');
		const entry = published[figure];
		if (!entry) {
			lines.push(`Not measured yet: \`npm run bench -- --only ${figure}\`.`);
			continue;
		}
		lines.push(
			`${runLine(entry.run)}`,
			'',
			...markdownTable(figureRows({ [key]: entry.result, errors: {} })),
		);
	}
	return `${lines.join('\n')}\n\n${notes.trim()}\n`;
}

/** Records `results` (when given) and writes bench/published.json and docs/performance.md. */
export function publish(results?: BenchResults): string {
	const published = results ? merge(readPublished(), results) : readPublished();
	writeFileSync(PUBLISHED_FILE, `${JSON.stringify(published, null, '\t')}\n`);
	writeFileSync(PAGE_FILE, renderPage(published, readFileSync(NOTES_FILE, 'utf8')));
	return path.relative(process.cwd(), PAGE_FILE);
}

if (require.main === module) {
	const file = process.argv[2];
	const results = file ? (JSON.parse(readFileSync(file, 'utf8')) as BenchResults) : undefined;
	process.stdout.write(`Wrote ${publish(results)}\n`);
}
