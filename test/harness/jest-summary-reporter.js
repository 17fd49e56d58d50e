// The run's closing line for CI (issue 13): `N passed, N failed, N skipped`, alone on a line,
// as the run's last line, after jest's own summary. A file that fails outside any test (a hook, a syntax error, a leak
// found after its tests) counts as one failure, so that the line never says 0 failed then.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const fileFailures = results.testResults.filter(
			(file) => file.testExecError || (file.failureMessage && file.numFailingTests === 0),
		).length;
		const failed = results.numFailedTests + fileFailures;
		const skipped = results.numPendingTests + results.numTodoTests;
		const line = `${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
		// Printed when the process exits: after jest's own summary lines, so that it is the last line.
		process.once('exit', () => process.stdout.write(`\n${line}\n`));
	}
}

module.exports = SummaryReporter;
