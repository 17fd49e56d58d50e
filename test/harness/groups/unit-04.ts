// One group of unit files (test/harness/unit-groups.js): its members are chosen per run.
import { runGroup } from '../group';

runGroup();
