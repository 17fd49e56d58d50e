// Unit files in groups (issue 38): in a run of many files, the files that need no real n8n run a
// few to a jest file (test/harness/groups/*.ts), each inside a `describe` named after its path.
// Why: jest gives every file a fresh module registry, and 51 of these files load n8n-core through
// the harness, about 2.3 s of CPU each time; grouped, a worker loads it once per group
// (`npm run test:unit`: 83 s of CPU instead of 133 s, farm-bench). Where a run is bound by the
// CPU of the machine's 2 cores (`npm test` was, 4.7 % idle in a `.ci/run`), the CPU saved is wall
// time; on an idle machine the inner loop's wall time is bound by its longest paced burst
// (pacing-burst-spec, about 66 s).
//
// A file stays alone when it must (it replaces a module for its whole file with `jest.mock`), or
// when it waits on the clock for most of its time (the paced bursts: grouped, their waits would
// queue one after another instead of overlapping), or when it waits for the others (the
// reliability table). A run of a few files (`npx jest test/erp/x.test.ts`) runs them as they are.
const { readdirSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');

const GROUP_DIR = path.join(__dirname, 'groups');

/** Fewer unit files than this in a run: each runs as its own jest file. */
const FEWEST_TO_GROUP = 8;

/**
 * End-to-end files (real n8n) and the others that run alone, by path; so does every file not a
 * `*.test.ts` (test:queue's and test:compat's).
 */
const ALONE = [
	/[\\/]test[\\/]e2e[\\/]/,
	/[\\/]test[\\/]reliability[\\/]table\.test\.ts$/,
	/[\\/]test[\\/]transport[\\/]pacing-burst-[a-z]+\.test\.ts$/,
];

const alone = (file) =>
	!file.endsWith('.test.ts') ||
	ALONE.some((pattern) => pattern.test(file)) ||
	/\bjest\.mock\(/.test(readFileSync(file, 'utf8'));

/** The group files, in name order. */
const groupFiles = () =>
	readdirSync(GROUP_DIR)
		.filter((name) => name.endsWith('.ts'))
		.sort()
		.map((name) => path.join(GROUP_DIR, name));

/**
 * The run's unit files that can share a jest file, dealt to the groups largest file first, one
 * each in turn, back and forth (a file's size stands for its time: the order never depends on an
 * earlier run); none when the run has too few of them. Jest's workers take the groups one after
 * another as they come free, so that a long group and short ones even out. Returns each group
 * file's members, and the files left to run alone (`paths` in the sequencer's order).
 */
function planGroups(paths) {
	const groupable = paths.filter((file) => !alone(file));
	if (groupable.length < FEWEST_TO_GROUP) return { groups: [], alone: paths };
	const groups = groupFiles().map((file) => ({ file, members: [] }));
	const n = groups.length;
	groupable
		.map((file) => ({ file, size: statSync(file).size }))
		.sort((a, b) => b.size - a.size || (a.file < b.file ? -1 : 1))
		.forEach(({ file }, i) => {
			const lap = Math.floor(i / n);
			groups[lap % 2 === 0 ? i % n : n - 1 - (i % n)].members.push(file);
		});
	return { groups, alone: paths.filter((file) => alone(file)) };
}

/** The members of the group file `file`, as the sequencer planned them for this run. */
function membersOf(file) {
	const plan = JSON.parse(process.env.ERP_TEST_GROUPS ?? '{}');
	return plan[path.basename(file)] ?? [];
}

module.exports = { planGroups, membersOf };
