// The order in which files start (issue 38): the end-to-end files first (each waits minutes on
// real n8n's clocks), then the rest, each group in path order, and the reliability table last
// (it waits for the figures of the five suites it sums up). With parallel workers the long waits
// start at once and the short files fill the gaps. The order never depends on an earlier run.
// The run's files are handed to the workers in ERP_TEST_FILES (the table test reads it).
const Sequencer = require('@jest/test-sequencer').default;

const group = (path) =>
	/[\\/]test[\\/]e2e[\\/]/.test(path)
		? 0
		: /[\\/]reliability[\\/]table\.test\.ts$/.test(path)
			? 2
			: 1;

class LongFirst extends Sequencer {
	sort(tests) {
		const sorted = [...tests].sort(
			(a, b) => group(a.path) - group(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
		);
		process.env.ERP_TEST_FILES = sorted.map((t) => t.path).join('\n');
		return sorted;
	}
}

module.exports = LongFirst;
