/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test harness, not a node */
/**
 * A group of unit files run as one jest file (test/harness/unit-groups.js says why and which):
 * each member inside a `describe` named after its path, so that its hooks stay its own, and the
 * secret-leak check (leaks.ts) at the group's level, over every member.
 */
import { describe, expect } from '@jest/globals';
import * as path from 'node:path';

import { registerFileLeakCheck } from './leaks';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS module the sequencer shares
const { membersOf } = require('./unit-groups') as { membersOf(file: string): string[] };

const ROOT = path.join(__dirname, '..', '..');

/** Runs the members the sequencer gave this group file in this run. */
export function runGroup(): void {
	registerFileLeakCheck();
	for (const member of membersOf(expect.getState().testPath ?? '')) {
		describe(path.relative(ROOT, member), () => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the member's tests here
			require(member);
		});
	}
}
