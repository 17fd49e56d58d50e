// P6 in fake time: the same burst (30 orders of 6 requests, one key, P6_LIMIT per
// P6_WINDOW_SECONDS) against a bare 429, through the pacing arithmetic with the discrete-event
// simulation of test/transport/simulate.ts: one process, one at the credential's rate, and two
// processes (n8n queue mode, 2 workers of 10, one of them 0 or 700 ms late to start). The real
// processes of p6.ts measure the same rows over real HTTP; this shows them without the machine's noise.
import { burst, simulate } from '../../test/transport/simulate';
import type { SimulationOptions } from '../../test/transport/simulate';

export interface P6SimulatedRow {
	name: string;
	/** Several processes: the queue-mode targets apply. */
	queue: boolean;
	/** The credential's rate was set. */
	rated: boolean;
	requests: number;
	refused: number;
	refusedShare: number;
	failed: number;
	ceilingUse: number;
	drainMs: number;
	idealMs: number;
}

export function runP6Simulated(limit: number, windowSeconds: number): P6SimulatedRow[] {
	const base = { ...burst(limit, windowSeconds, 20, 30, 6), bare: true, jitterMs: 20 };
	const rows: Array<[string, SimulationOptions]> = [
		['one process', base],
		[
			`one process, credential's rate ${(limit * 60) / windowSeconds} per minute`,
			{ ...base, ratePerMinute: (limit * 60) / windowSeconds },
		],
		['queue mode, 2 workers of 10', { ...base, processes: 2, concurrency: 10 }],
		[
			'queue mode, 2 workers of 10, one 700 ms late',
			{ ...base, processes: 2, concurrency: 10, staggerMs: 700 },
		],
	];
	return rows.map(([name, options]) => {
		const r = simulate(options);
		return {
			name: `fake time, bare 429, ${name}`,
			queue: (options.processes ?? 1) > 1,
			rated: options.ratePerMinute !== undefined,
			requests: r.accepted + r.refused,
			refused: r.refused,
			refusedShare: r.refusedShare,
			failed: r.failed,
			ceilingUse: r.ceilingUse,
			drainMs: r.drainMs,
			idealMs: r.idealMs,
		};
	});
}
