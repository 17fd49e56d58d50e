// Jest (issues 13 and 38). `npm test` runs every test/*/*.test.ts in parallel worker processes
// (each test its own sandbox on a free port; an end-to-end file its own n8n on free ports, or the
// run's shared one; the files that need no real n8n several to a jest file in a run of many:
// test/harness/unit-groups.js); `npm run test:unit` runs those that need no real n8n (every
// folder but test/e2e). Most of a file's time is waiting (n8n's one-minute polls, registration checks,
// rate-limit windows), not computing: more workers than cores let those waits overlap.
// Per-test timeout: 60 s for unit files; the e2e files and the reliability suites give their own.
const os = require('node:os');

/**
 * Workers: ERP_TEST_WORKERS, else 4 per core (most files wait on clocks, not on the CPU: with 3 per
 * core the long end-to-end files held every worker while the short files queued). 5 per core was
 * measured too: `npm test` took 624 s against 618 s, its files slower by as much as the queue they
 * no longer waited in (their times added up to 6,136 s against 4,883 s): the CPU is the bound.
 */
const workers = Number(process.env.ERP_TEST_WORKERS) || 4 * Math.max(1, os.availableParallelism());

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['<rootDir>/test/*/*.test.ts'],
	transform: {
		'^.+\\.ts$': [
			'@swc/jest',
			{ jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
		],
	},
	setupFiles: ['<rootDir>/test/harness/jest-setup.ts'],
	globalSetup: '<rootDir>/test/harness/jest-global-setup.js',
	globalTeardown: '<rootDir>/test/harness/jest-global-teardown.js',
	maxWorkers: workers,
	// A safety net for a hung test, never a measure: files run side by side, so a test that takes
	// 5 s alone may take several times that while n8n starts in the next worker.
	testTimeout: 60_000,
	// A test that timed out may leave its work running (an endless pagination loop, a server it
	// never closed): once every file has run and reported, the process exits all the same.
	forceExit: true,
	testSequencer: '<rootDir>/test/harness/jest-sequencer.js',
	reporters: [
		'default',
		[
			'<rootDir>/test/harness/jest-timings-reporter.js',
			{ name: process.env.ERP_TEST_REPORT || 'test' },
		],
		'<rootDir>/test/harness/jest-summary-reporter.js',
	],
};
