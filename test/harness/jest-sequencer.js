// The order in which files start (issue 38): the end-to-end files first (each waits minutes on
// real n8n's clocks), the longest of them first, then the rest in path order, and the
// reliability table last (it waits for the figures of the five suites it sums up). With parallel
// workers the long waits start at once and the short files fill the gaps. The order never
// depends on an earlier run. The run's files are handed to the workers in ERP_TEST_FILES (the
// table test and the global set-up read it). In a run of many files, the unit files that can
// share a jest file then run in groups (unit-groups.js), each group's members in ERP_TEST_GROUPS.
const path = require('node:path');

const Sequencer = require('@jest/test-sequencer').default;

const { planGroups } = require('./unit-groups');

const group = (path) =>
	/[\\/]test[\\/]e2e[\\/]/.test(path)
		? 0
		: /[\\/]reliability[\\/]table\.test\.ts$/.test(path)
			? 2
			: 1;

/**
 * The files that wait longest on n8n's clocks (restarts, one-minute polls and checks),
 * longest first, by name without `.test.ts`, `.queue.ts` or `.compat.ts`: each run prints its
 * slowest files (jest-timings-reporter.js), and these were the slowest of `.ci/run`'s `npm test`,
 * `test:queue` and `test:compat`. A file not listed starts after them. In path order,
 * test:compat started both trigger-health files (about 500 s each) last: it ran about 100 s past
 * what this order gives.
 */
const LONGEST = [
	// test:queue only: the shared deployment first (760 s with its five flash sales in .ci/run),
	// beside polling-durable (635 s); then polling (505 s) and webhooks-nginx (407 s) fill in.
	// On 3 jest workers rather than 2, the CPU was idle 0 % through most of the stage and two flash
	// sales ran all their executions on one n8n worker ([30,0]): test:queue failed.
	'shared',
	// The self-healing scenario's (b) and (c) (about 300 s alone); its (a), trigger-restart, is
	// shorter (about 180 s) and starts after polling.
	'trigger-heal-running',
	// test:compat only (each file once per n8n version).
	'trigger-health',
	'compat',
	'polling-durable',
	// Flash sales paced at 100 per minute (issue 39), each file's runs side by side.
	'flash-sale',
	'rate-limits',
	'nginx-limit',
	'security',
	'polling',
	'trigger-restart',
	// Not end-to-end, but paced in real time (96 requests at 100 per minute): the longest of
	// `npm run test:unit`, first among the others.
	'pacing-burst-spec',
	'webhooks-nginx',
];

const rank = (path) => {
	const at = LONGEST.indexOf(
		path
			.split(/[\\/]/)
			.pop()
			.replace(/\.(test|queue|compat)\.ts$/, ''),
	);
	return at === -1 ? LONGEST.length : at;
};

const byPath = (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

class LongFirst extends Sequencer {
	sort(tests) {
		const sorted = [...tests].sort(
			(a, b) => group(a.path) - group(b.path) || rank(a.path) - rank(b.path) || byPath(a, b),
		);
		process.env.ERP_TEST_FILES = sorted.map((t) => t.path).join('\n');
		const plan = planGroups(sorted.map((t) => t.path));
		if (plan.groups.length === 0) return sorted;
		process.env.ERP_TEST_GROUPS = JSON.stringify(
			Object.fromEntries(plan.groups.map((g) => [path.basename(g.file), g.members])),
		);
		// The groups start after the files of LONGEST, before the other files that run alone (the
		// paced bursts: waits that fill the gaps the groups leave) and the reliability table.
		const alone = sorted.filter((t) => plan.alone.includes(t.path));
		const byFile = new Map(sorted.map((t) => [t.path, t]));
		const grouped = plan.groups.map((g) => ({
			...byFile.get(g.members[0]),
			path: g.file,
			duration: undefined,
		}));
		const first = alone.filter((t) => group(t.path) === 0 || rank(t.path) < LONGEST.length);
		const last = alone.filter((t) => !first.includes(t));
		return [...first, ...grouped, ...last];
	}
}

module.exports = LongFirst;
