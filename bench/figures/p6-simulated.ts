// P6 in fake time: the flash sale (30 orders of 8 requests, one key) against each rate-limit
// algorithm the sandbox plays (sandbox/limiters.ts: fixed window, sliding window, token bucket)
// at the specification's 100 per minute, each reporting budget headers, Retry-After only or
// nothing at all (a bare 429); a token bucket answering a bare 429 (nginx's limit_req, burst 10)
// in front of the ERP's fixed window with its headers; one process and two queue-mode workers of
// 10. Through the pacer's own arithmetic in the discrete-event simulation of
// test/transport/simulate.ts; the control is the pacing of before (headers as permission).
import { simulate } from '../../test/transport/simulate';
import type { SimLimiter, SimulationOptions } from '../../test/transport/simulate';
import { RATE_LIMIT_ALGORITHMS } from '../../sandbox/limiters';

export interface P6SimulatedRow {
	name: string;
	requests: number;
	refused: number;
	refusedShare: number;
	failed: number;
	drainMs: number;
	idealMs: number;
	/** The targets: the 429 share, and the drain time against the ideal (one process). */
	maxRefusedShare: number;
	maxDrainRatio?: number;
	/** A control: it is expected to miss its targets. */
	control: boolean;
}

const RATE = { limit: 100, windowSeconds: 60 };
const BURST = 10;
const REPORTS = ['headers', 'retry-after', 'bare'] as const;

export function runP6Simulated(): P6SimulatedRow[] {
	const base = { latencyMs: 20, jitterMs: 20, executions: 30, requestsEach: 8 };
	const workers = { processes: 2, concurrency: 10 };
	const rows: Array<[string, SimulationOptions, number, boolean]> = [];
	for (const algorithm of RATE_LIMIT_ALGORITHMS) {
		for (const reports of REPORTS) {
			const limiter: SimLimiter = {
				...RATE,
				algorithm,
				reports,
				...(algorithm === 'token-bucket' ? { burst: BURST } : {}),
			};
			const target = reports === 'headers' ? 0.02 : 0.1;
			rows.push([`${algorithm}, ${reports}`, { ...base, limiters: [limiter] }, target, false]);
			const queueTarget = reports === 'headers' ? 0.02 : 0.15;
			rows.push([
				`${algorithm}, ${reports}, 2 workers of 10`,
				{ ...base, ...workers, limiters: [limiter] },
				queueTarget,
				false,
			]);
		}
	}
	const gateway: SimLimiter = { ...RATE, algorithm: 'token-bucket', burst: BURST, reports: 'bare' };
	const erp: SimLimiter = { ...RATE, algorithm: 'fixed-window', reports: 'headers' };
	const front =
		'token bucket answering a bare 429 (burst 10) in front of a fixed window with headers';
	rows.push([front, { ...base, limiters: [gateway, erp] }, 0.1, false]);
	rows.push([
		`${front}, 2 workers of 10`,
		{ ...base, ...workers, limiters: [gateway, erp] },
		0.15,
		false,
	]);
	rows.push([
		`control, the pacing of before: ${front}`,
		{ ...base, burst: true, limiters: [gateway, erp] },
		0.1,
		true,
	]);
	return rows.map(([name, options, maxRefusedShare, control]) => {
		const r = simulate(options);
		return {
			name: `fake time, ${name}`,
			requests: r.accepted + r.refused,
			refused: r.refused,
			refusedShare: r.refusedShare,
			failed: r.failed,
			drainMs: r.drainMs,
			idealMs: r.idealMs,
			maxRefusedShare,
			maxDrainRatio: options.processes === undefined ? 1.3 : undefined,
			control,
		};
	});
}
