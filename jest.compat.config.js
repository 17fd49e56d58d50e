// `npm run test:compat` (issues 24 and 38): the files of test/compat once per n8n version of
// COMPAT_VERSIONS (scripts/n8n-env.ts; ERP_COMPAT_VERSIONS=1.123.81,2.33.7 to choose), one jest
// project per version, so that the versions run side by side in parallel workers. A file learns
// its project's version from the global ERP_COMPAT_VERSION (test/compat/versions.ts).
const { require: tsxRequire } = require('tsx/cjs/api');

const base = require('./jest.config.js');
const { COMPAT_VERSIONS } = tsxRequire('./scripts/n8n-env.ts', __filename);

const versions = (process.env.ERP_COMPAT_VERSIONS?.split(',') ?? [...COMPAT_VERSIONS])
	.map((v) => v.trim())
	.filter(Boolean);

/** @type {import('jest').Config} */
module.exports = {
	maxWorkers: base.maxWorkers,
	forceExit: base.forceExit,
	testSequencer: base.testSequencer,
	globalSetup: base.globalSetup,
	globalTeardown: base.globalTeardown,
	reporters: base.reporters,
	projects: versions.map((version) => ({
		displayName: `n8n ${version}`,
		testEnvironment: base.testEnvironment,
		rootDir: __dirname,
		roots: ['<rootDir>/test'],
		testMatch: ['<rootDir>/test/compat/*.compat.ts'],
		transform: base.transform,
		setupFiles: base.setupFiles,
		testTimeout: base.testTimeout,
		globals: { ERP_COMPAT_VERSION: version },
	})),
};
