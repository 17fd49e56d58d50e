/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// Shared by the reliability suites (issue 8): the size switch (reduced in `npm test`, full with
// ERP_SOAK=1), printing each suite's figures, and the summary the table (table.test.ts) reads.
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** `npm run test:soak` sets ERP_SOAK=1: the suites run at full size. */
export const SOAK = process.env.ERP_SOAK === '1';

/** The reduced size in `npm test`, the full size in a soak run. */
export const scale = (reduced: number, soak: number): number => (SOAK ? soak : reduced);

export const SIZE_LABEL = SOAK ? 'soak' : 'reduced';

/** One figure of a suite: what was tried, and the outcome measured against its target. */
export interface Figure {
	suite: string;
	figure: string;
	value: number | string;
	target: string;
	ok: boolean;
	/** A measurement shown for information (a duration, a count with no target): never "at target". */
	info?: boolean;
}

/**
 * The summary of this run: in the run's shared folder (ERP_TEST_RUN_DIR, test/harness/
 * jest-global-setup.js), which every jest worker of the run writes to; outside jest's global
 * set-up, a file named by this process. ERP_RELIABILITY_SUMMARY names another file (the table
 * test's own run of the suites).
 */
export const SUMMARY_FILE =
	process.env.ERP_RELIABILITY_SUMMARY ??
	(process.env.ERP_TEST_RUN_DIR
		? path.join(process.env.ERP_TEST_RUN_DIR, 'reliability.jsonl')
		: path.join(tmpdir(), `n8n-nodes-erp-reliability-${process.pid}.jsonl`));

function pad(text: string, width: number): string {
	return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** Rows as an aligned text table (first row: the header). */
export function formatTable(rows: string[][]): string {
	const widths = rows[0].map((_, column) =>
		Math.max(...rows.map((row) => String(row[column] ?? '').length)),
	);
	return rows
		.map((row) =>
			row
				.map((cell, column) => pad(String(cell), widths[column]))
				.join('  ')
				.trimEnd(),
		)
		.join('\n');
}

/** Prints a table (first row: the header), with an optional title line. */
export function printTable(rows: string[][], title?: string): void {
	process.stdout.write(`\n${title ? `${title}\n` : ''}${formatTable(rows)}\n`);
}

/**
 * Prints the figures of one suite as a small table and adds them to the run's summary, with a
 * line saying the suite ended (even with no figure: a suite whose tests failed early), which the
 * table waits for.
 */
export function printFigures(suite: string, figures: Figure[]): void {
	const rows = [
		['suite', 'figure', 'value', 'target', ''],
		...figures.map((f) => [f.suite, f.figure, String(f.value), f.target, verdict(f)]),
	];
	printTable(rows, `${suite} (${SIZE_LABEL} size)`);
	const lines = [...figures.map((f) => ({ ...f, size: SIZE_LABEL })), { ended: suite }];
	appendFileSync(SUMMARY_FILE, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** What the summary holds: the figures printed so far, and the suites that ended. */
function readLines(file: string): Array<(Figure & { size: string }) | { ended: string }> {
	if (!existsSync(file)) return [];
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((line) => JSON.parse(line) as (Figure & { size: string }) | { ended: string });
}

/** The suites of this run that have ended so far (printFigures). */
export function endedSuites(file = SUMMARY_FILE): string[] {
	return readLines(file).flatMap((line) => ('ended' in line ? [line.ended] : []));
}

/** The figures the suites of this run have printed so far. */
function readSummary(file = SUMMARY_FILE): Array<Figure & { size: string }> {
	return readLines(file).flatMap((line) => ('ended' in line ? [] : [line]));
}

/** The figures the suites of this run have printed so far, and forgets them. */
export function takeSummary(file = SUMMARY_FILE): Array<Figure & { size: string }> {
	const figures = readSummary(file);
	rmSync(file, { force: true });
	return figures;
}

/** Runs `jobs` on `lanes` parallel lanes, in order; each job learns its lane (for a per-lane credential). */
export async function inLanes<T>(
	lanes: number,
	jobs: Array<(lane: number) => Promise<T>>,
): Promise<T[]> {
	const results: T[] = new Array(jobs.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: lanes }, async (_, lane) => {
			while (next < jobs.length) {
				const n = next++;
				results[n] = await jobs[n](lane);
			}
		}),
	);
	return results;
}

/** A figure whose target is an exact count. */
export function exactly(suite: string, figure: string, value: number, expected: number): Figure {
	return { suite, figure, value, target: `= ${expected}`, ok: value === expected };
}

/** A measurement with no target (a duration, a breakdown): shown as `info`, not counted as at target. */
export function note(suite: string, figure: string, value: number | string): Figure {
	return { suite, figure, value, target: '', ok: true, info: true };
}

/** The status column of a figure. */
export const verdict = (f: Figure): string => (f.info ? 'info' : f.ok ? 'ok' : 'MISSED');

/** A figure whose target is a minimum (what was tried). */
export function atLeast(suite: string, figure: string, value: number, minimum: number): Figure {
	return { suite, figure, value, target: `>= ${minimum}`, ok: value >= minimum };
}
