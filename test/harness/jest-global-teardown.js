// Removes the run's shared folder (jest-global-setup.js).
const { rmSync } = require('node:fs');

module.exports = async function globalTeardown() {
	const dir = process.env.ERP_TEST_RUN_DIR;
	if (dir) rmSync(dir, { recursive: true, force: true });
};
