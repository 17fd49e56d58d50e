/* eslint-disable @n8n/community-nodes/no-restricted-imports */
// P1 pagination overhead: Get Many with Return All through the n8n engine (the harness) against a
// bare undici loop making the same requests to the same sandbox (its own process, rate limit
// off), alternated. A third contender, the same loop opening a new connection per request, shows
// how much of the difference is n8n-core's request helper opening a new connection (a new
// http.Agent) for every request, which a node cannot change.
import { performance } from 'node:perf_hooks';

import { readAllWithNode, readAllWithUndici, readAllWithUndiciFresh } from '../contenders';
import type { Reader } from '../contenders';
import { startBenchSandbox } from '../sandbox';
import { UNPACED } from '../../sandbox';
import { alternate, summarize } from '../stats';
import type { Summary } from '../stats';
import type { FigureContext } from './types';

export interface P1Result {
	articles: number;
	rounds: number;
	requestsPerRun: Record<string, number>;
	/** The ERP node's execution as n8n-core timed it (runData executionTime). */
	nodeMs: Summary;
	/** The whole harness run: workflow set-up, the node, and the harness's test-only checks. */
	harnessMs: Summary;
	bareMs: Summary;
	bareFreshMs: Summary;
	/** Per round: node time / bare time of that round. */
	ratio: Summary;
	/** Per round: harness run time / bare time. */
	harnessRatio: Summary;
	/** Per round: node time / bare time with a new connection per request. */
	freshRatio: Summary;
}

interface Timing {
	ms: number;
	nodeMs?: number;
}

export async function runP1(context: FigureContext): Promise<P1Result> {
	const articles = 20_000;
	const rounds = context.quick ? 3 : 7;
	const sandbox = await startBenchSandbox({ articles, rateLimit: UNPACED });
	try {
		const requests: Record<string, number> = {};
		const timed = (name: string, read: Reader) => async (): Promise<Timing> => {
			await sandbox.takeLog();
			const start = performance.now();
			const { items, nodeRun } = await read(sandbox.baseUrl);
			const ms = performance.now() - start;
			const log = await sandbox.takeLog();
			if (items.length !== articles)
				throw new Error(`${name} read ${items.length} articles, not ${articles}`);
			if (log.some((record) => record.status !== 200))
				throw new Error(`${name} got answers other than 200`);
			requests[name] = log.length;
			return { ms, nodeMs: nodeRun?.executionTime };
		};
		const runs = await alternate(
			{
				node: timed('node', readAllWithNode),
				bare: timed('bare', readAllWithUndici),
				bareFresh: timed('bareFresh', readAllWithUndiciFresh),
			},
			rounds,
			{
				onRun: (name, round, t) =>
					context.progress(
						`P1 round ${round + 1}/${rounds} ${name}: ${t.ms.toFixed(0)} ms${t.nodeMs !== undefined ? ` (node ${t.nodeMs} ms)` : ''}`,
					),
			},
		);
		if (new Set(Object.values(requests)).size !== 1) {
			throw new Error(
				`the contenders made different numbers of requests: ${JSON.stringify(requests)}`,
			);
		}
		const nodeMs = runs.node.map((t) => t.nodeMs ?? Number.NaN);
		const per = (numerator: number[], denominator: Timing[]) =>
			summarize(numerator.map((ms, i) => ms / denominator[i].ms));
		return {
			articles,
			rounds,
			requestsPerRun: requests,
			nodeMs: summarize(nodeMs),
			harnessMs: summarize(runs.node.map((t) => t.ms)),
			bareMs: summarize(runs.bare.map((t) => t.ms)),
			bareFreshMs: summarize(runs.bareFresh.map((t) => t.ms)),
			ratio: per(nodeMs, runs.bare),
			harnessRatio: per(
				runs.node.map((t) => t.ms),
				runs.bare,
			),
			freshRatio: per(nodeMs, runs.bareFresh),
		};
	} finally {
		await sandbox.close();
	}
}
