/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// The R1 to R5 table (issue 8, issue 13): the figures every reliability suite of this run printed,
// together, once they have all run. The suites run in other jest workers at the same time (issue
// 38); this file starts last (test/harness/jest-sequencer.js) and waits for their figures in the
// run's summary. Run without them, it runs the five suites itself in a child jest, so that it never
// has nothing to show.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, it } from '@jest/globals';

import {
	SIZE_LABEL,
	atLeast,
	exactly,
	endedSuites,
	printTable,
	takeSummary,
	verdict,
} from './common';

const SUITES = [
	'R1 faults while reading',
	'R2 duplicate writes',
	'R3 forged webhooks',
	'R4 secret leaks',
	'R5 bad input',
];

/** Runs r1 to r5 in a child jest and returns their figures. */
function runSuitesAlone(): ReturnType<typeof takeSummary> {
	const summary = path.join(tmpdir(), `n8n-nodes-erp-reliability-table-${process.pid}.jsonl`);
	rmSync(summary, { force: true });
	const root = path.resolve(__dirname, '..', '..');
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- runs the test runner on the suites, not a node
	const child = spawnSync(
		process.execPath,
		[require.resolve('jest/bin/jest'), '--runInBand', 'test/reliability/r[1-5]-'],
		{
			cwd: root,
			env: { ...process.env, ERP_RELIABILITY_SUMMARY: summary },
			encoding: 'utf8',
			maxBuffer: 64 * 1024 * 1024,
		},
	);
	assert.equal(child.status, 0, `the reliability suites failed:\n${child.stderr.slice(-4000)}`);
	return takeSummary(summary);
}

/** Whether this jest run also runs r1 to r5 (the run's files: test/harness/jest-sequencer.js). */
function suitesInThisRun(): boolean {
	const files = (process.env.ERP_TEST_FILES ?? '').split('\n');
	return [1, 2, 3, 4, 5].every((n) =>
		files.some((file) => path.basename(file).startsWith(`r${n}-`)),
	);
}

/**
 * The figures of the five suites, once each has ended (they run in other workers); a suite that
 * ended with no figure is then reported below as one that printed none.
 */
async function figuresOfThisRun(): Promise<ReturnType<typeof takeSummary>> {
	for (;;) {
		const ended = new Set(endedSuites());
		if (SUITES.every((s) => ended.has(s))) return takeSummary();
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

describe('R1 to R5 table', () => {
	it('a figure misses when its measured count is off its target (control)', () => {
		assert.equal(exactly('control', 'leaks', 1, 0).ok, false);
		assert.equal(exactly('control', 'runs', 80, 81).ok, false);
		assert.equal(atLeast('control', 'scanned', 69, 70).ok, false);
		assert.equal(verdict(exactly('control', 'leaks', 1, 0)), 'MISSED');
		assert.equal(exactly('control', 'leaks', 0, 0).ok, true);
	});

	it(
		'every figure of R1 to R5 is at its target, with a control that fails with its feature off',
		async () => {
			const figures = suitesInThisRun() ? await figuresOfThisRun() : runSuitesAlone();
			const suites = [...new Set(figures.map((f) => f.suite))];
			assert.deepEqual(
				SUITES.filter((s) => !suites.includes(s)),
				[],
				'suites that printed no figure',
			);
			const counted = figures.filter((f) => !f.info);
			printTable(
				[
					['suite', 'figure', 'value', 'target', ''],
					...figures.map((f) => [f.suite, f.figure, String(f.value), f.target, verdict(f)]),
				],
				`Reliability and security suites, ${SIZE_LABEL} size: ${suites.length} suites, ${counted.filter((f) => f.ok).length} of ${counted.length} figures at target (${figures.length - counted.length} shown for information)`,
			);
			// The R2 control (idempotency keys off) must see duplicates: the count can miss.
			const control = figures.find((f) => f.figure.startsWith('control, keys off'));
			assert.ok(control, 'the R2 keys-off control row is missing');
			assert.ok(Number(control.value) > 0, 'the keys-off control saw no duplicate');
			assert.deepEqual(
				counted
					.filter((f) => !f.ok)
					.map((f) => `${f.suite}: ${f.figure} = ${f.value} (target ${f.target})`),
				[],
			);
		},
		20 * 60_000,
	);
});
