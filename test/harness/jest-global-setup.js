// Once per jest run, before any test file (issue 38): a folder the run's files share, in
// ERP_TEST_RUN_DIR (the workers inherit it): the first end-to-end file builds and packs the
// package there for every other file (scripts/n8n-instance.ts, `buildAndPack`), the reliability
// suites write their figures there for the table (test/reliability/common.ts), and the run's
// shared n8n says there where it answers (test/e2e/shared-n8n.ts). That n8n is started here, in
// the background (the files that do not use it start at once), when a file of the run asks for
// it (`shared: true`). The global teardown stops it and removes the folder.
const { mkdtempSync, readFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { require: tsxRequire } = require('tsx/cjs/api');

/** The run's files (test/harness/jest-sequencer.js) that use the shared n8n. */
function filesSharingN8n() {
	return (process.env.ERP_TEST_FILES ?? '')
		.split('\n')
		.filter((file) => /[\\/]test[\\/]e2e[\\/]/.test(file))
		.filter((file) => /\bshared: true\b/.test(readFileSync(file, 'utf8')));
}

module.exports = async function globalSetup() {
	const runDir = mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-erp-run-'));
	process.env.ERP_TEST_RUN_DIR = runDir;
	const { e2eSkipped } = tsxRequire('../../scripts/n8n-instance.ts', __filename);
	if (e2eSkipped() || filesSharingN8n().length === 0) return;
	const { startSharedN8n } = tsxRequire('../e2e/shared-n8n.ts', __filename);
	const log = (line) => process.stderr.write(`[shared n8n] ${line}\n`);
	// Not awaited: the teardown awaits it.
	globalThis.erpSharedN8n = startSharedN8n(runDir, log);
};
