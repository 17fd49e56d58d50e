// Where a test run's time goes (issue 38): each file's wall time, written to
// `test-results/<name>.json` (slowest first) and the slowest files printed after jest's summary.
// `<name>` is the reporter's `name` option (jest.config.js), so that `npm test`, `test:unit`,
// `test:queue` and `test:compat` keep their own report; a group of unit files lists its members'
// times too. Durations are reported, never asserted.
const { mkdirSync, writeFileSync, writeSync } = require('node:fs');
const path = require('node:path');

const SHOWN = 12;

/** The file's jest project, when the run has several (test:compat: one per n8n version). */
const project = (file) => {
	const name = file.displayName?.name ?? file.displayName;
	return typeof name === 'string' && name ? `[${name}] ` : '';
};

const seconds = (ms) => Math.round(ms / 100) / 10;

/**
 * A group of unit files (test/harness/unit-groups.js): each member's tests' time and count (its
 * tests are under a describe named after its path; its hooks' time is not counted).
 */
const membersOf = (file) => {
	if (!/[\\/]test[\\/]harness[\\/]groups[\\/]/.test(file.testFilePath)) return {};
	const members = new Map();
	for (const t of file.testResults) {
		const member = members.get(t.ancestorTitles[0]) ?? {
			file: t.ancestorTitles[0],
			ms: 0,
			tests: 0,
		};
		member.ms += t.duration ?? 0;
		member.tests += 1;
		members.set(member.file, member);
	}
	return {
		members: [...members.values()]
			.map((m) => ({ file: m.file, testsSeconds: seconds(m.ms), tests: m.tests }))
			.sort((a, b) => b.testsSeconds - a.testsSeconds),
	};
};

class TimingsReporter {
	constructor(globalConfig, options = {}) {
		this.rootDir = globalConfig.rootDir;
		this.name = options.name ?? 'jest';
	}

	onRunStart() {
		this.started = Date.now();
	}

	onRunComplete(_contexts, results) {
		const files = results.testResults
			.map((file) => ({
				file: `${project(file)}${path.relative(this.rootDir, file.testFilePath)}`,
				seconds: Math.round((file.perfStats.end - file.perfStats.start) / 100) / 10,
				tests: file.numPassingTests + file.numFailingTests + file.numPendingTests,
				failed: file.numFailingTests + (file.testExecError ? 1 : 0),
				...membersOf(file),
			}))
			.sort((a, b) => b.seconds - a.seconds);
		const wallSeconds = Math.round((Date.now() - this.started) / 100) / 10;
		const sumSeconds = Math.round(files.reduce((sum, f) => sum + f.seconds, 0));
		const dir = path.join(this.rootDir, 'test-results');
		mkdirSync(dir, { recursive: true });
		const out = path.join(dir, `${this.name}.json`);
		writeFileSync(out, JSON.stringify({ wallSeconds, sumSeconds, files }, null, 2) + '\n');
		const lines = [
			`\nWall time ${wallSeconds} s; the files' own times add up to ${sumSeconds} s. Slowest files (all in ${path.relative(this.rootDir, out)}):`,
			...files
				.slice(0, SHOWN)
				.map(
					(f) => `  ${String(f.seconds).padStart(7)} s  ${f.file}${f.failed ? '  (failed)' : ''}`,
				),
		];
		// Written at exit, straight to the file descriptor, before the summary reporter's last line
		// (registered after this one): jest's forced exit silences process.stdout.
		process.once('exit', () => writeSync(1, lines.join('\n') + '\n'));
	}
}

module.exports = TimingsReporter;
