/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- drives n8n from outside, not a node */
/**
 * The polling scenario's look into n8n's SQLite database (test/e2e/polling-scenario.ts), with
 * n8n's own Node 24 (node:sqlite): a trigger's saved position cleared while n8n is stopped, and
 * the position n8n 2.41's durable poll cursors keep in `poller_state`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

import type { E2e } from './helpers';

/** Runs `script` (argv[1]: n8n's SQLite database, then `args`) with n8n's own Node 24. */
function inDatabase(e2e: E2e, script: string, ...args: string[]): string {
	const database = path.join(e2e.userFolder, '.n8n', 'database.sqlite');
	return execFileSync(
		e2e.config.env.nodeBin,
		['-e', `const { DatabaseSync } = require('node:sqlite');\n${script}`, database, ...args],
		{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
	);
}

/**
 * Clears a workflow's saved positions in n8n's database (n8n stopped): its static data and, where
 * n8n has the table, its rows of `poller_state` (durable cursors).
 */
export function clearStaticData(e2e: E2e, workflowId: string): void {
	const changes = inDatabase(
		e2e,
		`const db = new DatabaseSync(process.argv[1]);
const r = db.prepare('UPDATE workflow_entity SET staticData = NULL WHERE id = ?').run(process.argv[2]);
const durable = db.prepare("SELECT name FROM sqlite_master WHERE name = 'poller_state'").get();
if (durable) db.prepare("UPDATE poller_state SET cursor = '{}' WHERE workflowId = ?").run(process.argv[2]);
process.stdout.write(String(r.changes));`,
		workflowId,
	);
	assert.equal(changes, '1', `the static data of ${workflowId} was cleared`);
}

/** The saved state of a workflow's trigger in `poller_state` (durable cursors). */
export function durableCursor(e2e: E2e, workflowId: string): { watch?: string; position?: string } {
	const cursor = inDatabase(
		e2e,
		`const db = new DatabaseSync(process.argv[1], { readOnly: true });
const row = db.prepare('SELECT cursor FROM poller_state WHERE workflowId = ?').get(process.argv[2]);
process.stdout.write(row ? String(row.cursor) : '{}');`,
		workflowId,
	);
	return JSON.parse(cursor);
}
