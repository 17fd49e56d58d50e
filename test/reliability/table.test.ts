/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// The R1 to R5 table (issue 8): the figures every reliability suite of this run printed, together,
// once they have all run (this file sorts after r1 to r5). Run alone, it has nothing to show.
import assert from 'node:assert/strict';
import { it } from '@jest/globals';

import { SIZE_LABEL, printTable, takeSummary } from './common';

it('R1 to R5: every figure at its target', () => {
	const figures = takeSummary();
	if (figures.length === 0) {
		process.stdout.write(`skipped: ${'no reliability suite ran before this file in this run'}\n`);
		return;
	}
	const suites = [...new Set(figures.map((f) => f.suite))];
	printTable(
		[
			['suite', 'figure', 'value', 'target', ''],
			...figures.map((f) => [f.suite, f.figure, String(f.value), f.target, f.ok ? 'ok' : 'MISSED']),
		],
		`Reliability and security suites, ${SIZE_LABEL} size: ${suites.length} suites, ${figures.filter((f) => f.ok).length} of ${figures.length} figures at target`,
	);
	assert.deepEqual(
		figures
			.filter((f) => !f.ok)
			.map((f) => `${f.suite}: ${f.figure} = ${f.value} (target ${f.target})`),
		[],
	);
});
