// Stops the run's shared n8n, if the global set-up started one, and removes the run's folder
// (jest-global-setup.js).
const { rmSync } = require('node:fs');

module.exports = async function globalTeardown() {
	const shared = await globalThis.erpSharedN8n;
	await shared?.stop();
	const dir = process.env.ERP_TEST_RUN_DIR;
	if (dir) rmSync(dir, { recursive: true, force: true });
};
