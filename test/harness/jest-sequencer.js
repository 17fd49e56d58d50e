// Runs the test files in path order (as `node --test test/*/*.test.ts` did), not by size or
// last duration: the order of a run does not depend on the run before it.
const Sequencer = require('@jest/test-sequencer').default;

class PathOrder extends Sequencer {
	sort(tests) {
		return [...tests].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	}
}

module.exports = PathOrder;
