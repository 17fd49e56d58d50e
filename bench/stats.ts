// Summaries of repeated measurements, and the alternating order in which contenders run.

export interface Summary {
	median: number;
	min: number;
	max: number;
	runs: number[];
}

export function summarize(values: number[]): Summary {
	if (values.length === 0) throw new Error('summarize: no values');
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { median, min: sorted[0], max: sorted[sorted.length - 1], runs: values };
}

/**
 * Runs each contender `rounds` times in alternation (A, B, A, B, ...), after one unmeasured
 * warm-up run of each, and returns every contender's measured results in run order. Alternating
 * spreads the machine's drift (other load, thermal, GC of earlier figures) over all contenders.
 */
export async function alternate<T>(
	contenders: Record<string, () => Promise<T>>,
	rounds: number,
	options: { warmup?: boolean; onRun?: (name: string, round: number, result: T) => void } = {},
): Promise<Record<string, T[]>> {
	const names = Object.keys(contenders);
	const results: Record<string, T[]> = Object.fromEntries(names.map((name) => [name, [] as T[]]));
	if (options.warmup !== false) {
		for (const name of names) await contenders[name]();
	}
	for (let round = 0; round < rounds; round++) {
		for (const name of names) {
			const result = await contenders[name]();
			results[name].push(result);
			options.onRun?.(name, round, result);
		}
	}
	return results;
}

/** `12.3 (11.9–13.0)`: median with min and max, in the given unit's formatting. */
export function formatSummary(summary: Summary, format: (value: number) => string): string {
	return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)})`;
}

export const fixed = (digits: number) => (value: number) => value.toFixed(digits);
export const percent = (digits = 1) => (value: number) => `${(value * 100).toFixed(digits)} %`;
export const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
