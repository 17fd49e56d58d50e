// Jest (issue 13): `npm test` runs every test/*/*.test.ts in one process, one file after the
// other (the files start servers, the e2e file starts real n8n), in file-name order.
// Per-test timeout: tight for unit files; the e2e file and the reliability suites give their own.
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
	testTimeout: 20_000,
	// A test that timed out may leave its work running (an endless pagination loop, a server it
	// never closed): once every file has run and reported, the process exits all the same.
	forceExit: true,
	testSequencer: '<rootDir>/test/harness/jest-sequencer.js',
	reporters: ['default', '<rootDir>/test/harness/jest-summary-reporter.js'],
};
