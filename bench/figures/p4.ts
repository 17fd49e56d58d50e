/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// P4 memory: Return All over 100,000 articles. Each run is a fresh child process (--expose-gc, so
// the baseline is taken after a full GC) that reads every article while sampling its memory; the
// sandbox runs in another process, so its data is not counted. Growth is compared with the bytes
// of JSON the server sent (Content-Length of every answer). The bare undici loop, keeping the same
// items, is the floor: what merely holding 100,000 parsed articles costs; the same loop opening a
// new connection per request (as n8n-core's request helper does) shows what that policy costs.
import { fork } from 'node:child_process';
import path from 'node:path';

import { startBenchSandbox } from '../sandbox';
import { UNPACED } from '../../sandbox';
import { alternate, summarize } from '../stats';
import type { Summary } from '../stats';
import type { MemoryMeasure } from './p4-child';
import type { FigureContext } from './types';

const CHILD = path.join(__dirname, 'p4-child.ts');

export interface P4Contender {
	runs: Array<MemoryMeasure & { jsonBytes: number }>;
	/** (peak RSS - baseline RSS) / JSON bytes. */
	rssRatio: Summary;
	/** (peak heapUsed - baseline heapUsed) / JSON bytes. */
	heapRatio: Summary;
	/** (heapUsed after GC, items held - baseline heapUsed) / JSON bytes. */
	retainedRatio: Summary;
	/** (peak heapUsed over the whole harness run - baseline) / JSON bytes: includes the harness's checks. */
	wholeRunHeapRatio: Summary;
	/** (peak arrayBuffers - baseline) / JSON bytes: Buffers (outside the heap, inside RSS) awaiting GC. */
	arrayBuffersRatio: Summary;
	/** (arrayBuffers after GC - baseline) / JSON bytes: Buffers still held. */
	retainedArrayBuffersRatio: Summary;
	peakRssMb: Summary;
}

export interface P4Result {
	articles: number;
	rounds: number;
	jsonBytes: number;
	node: P4Contender;
	bare: P4Contender;
	bareFresh: P4Contender;
}

function measureInChild(baseUrl: string, contender: string): Promise<MemoryMeasure> {
	return new Promise((resolve, reject) => {
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- the benchmark runs measured code in child processes
		const child = fork(CHILD, [baseUrl, contender], {
			execArgv: ['--expose-gc', '--import', 'tsx'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		let measure: MemoryMeasure | undefined;
		child.on('message', (message) => {
			measure = message as MemoryMeasure;
		});
		child.on('error', reject);
		child.on('exit', (code) => {
			if (measure && code === 0) resolve(measure);
			else reject(new Error(`the P4 ${contender} process exited with code ${code}`));
		});
	});
}

const MB = 1024 * 1024;

export async function runP4(context: FigureContext): Promise<P4Result> {
	const articles = context.quick ? 20_000 : 100_000;
	const rounds = context.quick ? 1 : 3;
	const sandbox = await startBenchSandbox({ articles, rateLimit: UNPACED, dailyQuota: 10_000_000 });
	try {
		let jsonBytes = 0;
		const measured = (contender: string) => async () => {
			await sandbox.takeLog();
			const measure = await measureInChild(sandbox.baseUrl, contender);
			// The warm-up request (one item) comes first in the log: leave it out.
			const log = (await sandbox.takeLog()).slice(1);
			if (measure.items !== articles)
				throw new Error(`P4 ${contender} read ${measure.items} articles, not ${articles}`);
			jsonBytes = log.reduce((sum, record) => sum + record.bytes, 0);
			return { ...measure, jsonBytes };
		};
		const runs = await alternate(
			{ node: measured('node'), bare: measured('bare'), bareFresh: measured('bare-fresh') },
			rounds,
			{
				warmup: false,
				onRun: (name, round, m) =>
					context.progress(
						`P4 round ${round + 1}/${rounds} ${name}: heap +${((m.peak.heapUsed - m.baseline.heapUsed) / MB).toFixed(0)} MB, ` +
							`RSS +${((m.peak.rss - m.baseline.rss) / MB).toFixed(0)} MB for ${(m.jsonBytes / MB).toFixed(1)} MB of JSON`,
					),
			},
		);
		const contender = (list: Array<MemoryMeasure & { jsonBytes: number }>): P4Contender => ({
			runs: list,
			rssRatio: summarize(list.map((m) => (m.peak.rss - m.baseline.rss) / m.jsonBytes)),
			heapRatio: summarize(list.map((m) => (m.peak.heapUsed - m.baseline.heapUsed) / m.jsonBytes)),
			retainedRatio: summarize(
				list.map((m) => (m.retainedHeapUsed - m.baseline.heapUsed) / m.jsonBytes),
			),
			wholeRunHeapRatio: summarize(
				list.map((m) => (m.peakWholeRun.heapUsed - m.baseline.heapUsed) / m.jsonBytes),
			),
			arrayBuffersRatio: summarize(
				list.map((m) => (m.peak.arrayBuffers - m.baseline.arrayBuffers) / m.jsonBytes),
			),
			retainedArrayBuffersRatio: summarize(
				list.map((m) => (m.retainedArrayBuffers - m.baseline.arrayBuffers) / m.jsonBytes),
			),
			peakRssMb: summarize(list.map((m) => m.peak.rss / MB)),
		});
		return {
			articles,
			rounds,
			jsonBytes,
			node: contender(runs.node),
			bare: contender(runs.bare),
			bareFresh: contender(runs.bareFresh),
		};
	} finally {
		await sandbox.close();
	}
}
