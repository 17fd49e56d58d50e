/* eslint-disable @n8n/community-nodes/no-restricted-globals */
// P6's second process (forked by p6.ts): runs its share of the orders through the harness with
// the same key, then sends { failed, errors, drainMs } over IPC. Argv: <baseUrl> <key>; the plan
// comes as the first IPC message.
import type { BurstPlan } from '../../scripts/order-burst';
import { runBurstInProcess } from '../../test/transport/order-burst';

const [baseUrl, key] = process.argv.slice(2);
process.once('message', (plan: BurstPlan) => {
	runBurstInProcess(baseUrl, key, plan).then(
		(result) => process.send!(result, () => process.exit(0)),
		(error: unknown) =>
			process.send!({ failed: plan.orders.length, errors: [String(error)], drainMs: 0 }, () =>
				process.exit(1),
			),
	);
});
process.send!('ready');
