// Injected faults for /v1 requests, deterministic for a given seed.
import type { Fault } from './schemas';
import { rng } from './store';

interface ActiveFault {
	fault: Fault;
	left?: number;
}

export class Faults {
	private active: ActiveFault[] = [];
	private random = rng(1);

	set(faults: Fault[], seed = 1): void {
		this.random = rng(seed);
		this.active = faults.map((fault) => ({ fault, left: fault.count }));
	}

	list(): Array<Fault & { left?: number }> {
		return this.active.map(({ fault, left }) => ({
			...fault,
			...(left === undefined ? {} : { left }),
		}));
	}

	/**
	 * The fault to apply to this request, if any: the first matching fault that fires.
	 * A fault with `count` fires on the next `count` matching requests; with `probability` it fires at random
	 * (seeded); with both, each firing uses up one of `count`.
	 */
	pick(method: string, path: string): Fault | undefined {
		for (const a of this.active) {
			const { fault } = a;
			if (fault.methods && !fault.methods.includes(method)) continue;
			if (
				fault.paths &&
				!fault.paths.some((p) => path.startsWith(p) || path.slice(3).startsWith(p))
			)
				continue;
			if (a.left !== undefined && a.left <= 0) continue;
			if (fault.probability !== undefined && this.random() >= fault.probability) continue;
			if (a.left !== undefined) a.left--;
			return fault;
		}
		return undefined;
	}
}
