/* eslint-disable @n8n/community-nodes/no-restricted-globals */
// P4's measured process (forked with --expose-gc by p4.ts): one contender reads every article
// while memory is sampled. Argv: <baseUrl> <node|bare>. Sends one MemoryMeasure over IPC.
import { readers } from '../contenders';

export interface Peak {
	rss: number;
	heapUsed: number;
	external: number;
	arrayBuffers: number;
}

export interface MemoryMeasure {
	items: number;
	baseline: NodeJS.MemoryUsage;
	/**
	 * Highest values while the contender read: for the node, while the ERP node executed (n8n-core's
	 * startTime + executionTime), which leaves out the harness's test-only checks after the run.
	 */
	peak: Peak;
	/** Highest values over the whole call (for the node: the harness run, its leak scan included). */
	peakWholeRun: Peak;
	/** heapUsed after a full GC with the items still held: what keeping them costs. */
	retainedHeapUsed: number;
	/** arrayBuffers (Buffers' memory, outside the heap) after that GC. */
	retainedArrayBuffers: number;
	samples: number;
	durationMs: number;
}

const SAMPLE_EVERY_MS = 5;

function fullGc(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	// Twice: the first pass may only queue finalizers whose objects the second one frees.
	gc();
	gc();
}

async function main(): Promise<void> {
	const [baseUrl, contender] = process.argv.slice(2);
	const read = readers[contender];
	if (!read) throw new Error(`unknown contender "${contender}"`);

	// Warm-up: load and compile every module of the path (n8n-core, the node, undici) first.
	await read(baseUrl, undefined, 1);
	fullGc();
	const baseline = process.memoryUsage();
	const samples: Array<Peak & { atMs: number }> = [];
	const sample = () => {
		const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
		samples.push({ atMs: Date.now(), rss, heapUsed, external, arrayBuffers });
	};
	const timer = setInterval(sample, SAMPLE_EVERY_MS);
	const startMs = Date.now();
	const start = performance.now();
	const result = await read(baseUrl);
	const durationMs = performance.now() - start;
	clearInterval(timer);
	sample(); // the end of the call, every item still held
	fullGc();
	const { heapUsed: retainedHeapUsed, arrayBuffers: retainedArrayBuffers } = process.memoryUsage();

	const peakOf = (from: number, to: number): Peak => {
		const peak: Peak = { rss: baseline.rss, heapUsed: baseline.heapUsed, external: baseline.external, arrayBuffers: baseline.arrayBuffers };
		for (const s of samples) {
			if (s.atMs < from || s.atMs > to) continue;
			peak.rss = Math.max(peak.rss, s.rss);
			peak.heapUsed = Math.max(peak.heapUsed, s.heapUsed);
			peak.external = Math.max(peak.external, s.external);
			peak.arrayBuffers = Math.max(peak.arrayBuffers, s.arrayBuffers);
		}
		return peak;
	};
	const window = result.nodeRun
		? { from: result.nodeRun.startTime, to: result.nodeRun.startTime + result.nodeRun.executionTime + SAMPLE_EVERY_MS }
		: { from: startMs, to: Number.POSITIVE_INFINITY };
	const measure: MemoryMeasure = {
		items: result.items.length,
		baseline,
		peak: peakOf(window.from, window.to),
		peakWholeRun: peakOf(startMs, Number.POSITIVE_INFINITY),
		retainedHeapUsed,
		retainedArrayBuffers,
		samples: samples.length,
		durationMs,
	};
	process.send?.(measure, () => process.exit(0));
}

main().catch((error: unknown) => {
	process.stderr.write(`p4 child failed: ${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
