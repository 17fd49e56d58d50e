/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- drives n8n from outside, not a node */
/**
 * The polling scenario's look into n8n's database (test/e2e/polling-scenario.ts): a trigger's
 * saved position cleared while n8n is stopped (the control), and the state n8n 2.41's durable
 * poll cursors keep in `poller_state`. One set of statements, run in SQLite (one n8n process,
 * with n8n's own Node 24 and node:sqlite) or in PostgreSQL (queue mode, with psql).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

import type { QueueDeployment } from '../../scripts/queue-mode';
import type { E2e } from './helpers';

/** Runs SQL in n8n's database: `run` gives the rows changed, `value` the first row's first column. */
type Sql = {
	run(sql: string): number;
	value(sql: string): string | undefined;
	hasTable(name: string): boolean;
};

/** A trigger's state as the scenario reads it. */
export type SavedState = { watch?: string; position?: string };

/** What the scenario does in n8n's database. */
export type SavedPositions = {
	/** Clears a workflow's static data and, where n8n has the table, its `poller_state` rows. */
	clear(workflowId: string): void;
	/** The state of the workflow's trigger in `poller_state` ({} when it has none). */
	durableCursor(workflowId: string): SavedState;
};

function positionsIn(sql: Sql): SavedPositions {
	const id = (workflowId: string) => {
		assert.match(workflowId, /^[A-Za-z0-9]+$/);
		return `'${workflowId}'`;
	};
	return {
		clear(workflowId) {
			const changes = sql.run(
				`UPDATE workflow_entity SET "staticData" = NULL WHERE id = ${id(workflowId)}`,
			);
			assert.equal(changes, 1, `the static data of ${workflowId} was cleared`);
			if (sql.hasTable('poller_state'))
				sql.run(`UPDATE poller_state SET "cursor" = '{}' WHERE "workflowId" = ${id(workflowId)}`);
		},
		durableCursor(workflowId) {
			const cursor = sql.value(
				`SELECT "cursor" FROM poller_state WHERE "workflowId" = ${id(workflowId)}`,
			);
			return cursor ? (JSON.parse(cursor) as SavedState) : {};
		},
	};
}

/** One n8n process's SQLite database (test/e2e). */
export function sqlitePositions(e2e: E2e): SavedPositions {
	const database = path.join(e2e.userFolder, '.n8n', 'database.sqlite');
	const script = `const { DatabaseSync } = require('node:sqlite');
const [, database, mode, sql] = process.argv;
const statement = new DatabaseSync(database).prepare(sql);
if (mode === 'run') process.stdout.write(String(statement.run().changes));
else { const row = statement.get(); process.stdout.write(row ? String(Object.values(row)[0]) : ''); }`;
	const exec = (mode: 'run' | 'value', sql: string) =>
		execFileSync(e2e.config.env.nodeBin, ['-e', script, database, mode, sql], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
	return positionsIn({
		run: (sql) => Number(exec('run', sql)),
		value: (sql) => exec('value', sql) || undefined,
		hasTable: (name) =>
			exec('value', `SELECT name FROM sqlite_master WHERE name = '${name}'`) === name,
	});
}

/** Queue mode's PostgreSQL database (test/queue-mode). */
export function postgresPositions(queue: QueueDeployment): SavedPositions {
	return positionsIn({
		run: (sql) => Number(/\d+$/.exec(queue.sql(sql).trim())?.[0] ?? NaN),
		value: (sql) => queue.sql(sql).trim() || undefined,
		hasTable: (name) => queue.sql(`SELECT to_regclass('${name}')`).trim() === name,
	});
}
