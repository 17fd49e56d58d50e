// The run's closing line for CI (issue 13): `N passed, N failed, N skipped`, alone on a line, as
// the run's last line, after jest's own summary. A file that fails outside any test (a hook, a
// syntax error, a leak found after its tests) counts as one failure, so that the line never says
// 0 failed then.
const { writeSync } = require('node:fs');

class SummaryReporter {
	onRunComplete(_contexts, results) {
		const fileFailures = results.testResults.filter(
			(file) => file.testExecError || (file.failureMessage && file.numFailingTests === 0),
		).length;
		const failed = results.numFailedTests + fileFailures;
		const skipped = results.numPendingTests + results.numTodoTests;
		const line = `${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
		// Written when the process exits, straight to the file descriptor: jest's forced exit
		// silences process.stdout before exiting.
		process.once('exit', () => writeSync(1, `\n${line}\n`));
	}
}

module.exports = SummaryReporter;
