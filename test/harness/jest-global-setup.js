// Once per jest run, before any test file (issue 38): a folder the run's files share, in
// ERP_TEST_RUN_DIR (the workers inherit it): the first end-to-end file builds and packs the
// package there for every other file (scripts/n8n-instance.ts, `buildAndPack`), and the
// reliability suites write their figures there for the table (test/reliability/common.ts).
// The global teardown removes it.
const { mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function globalSetup() {
	process.env.ERP_TEST_RUN_DIR = mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-erp-run-'));
};
