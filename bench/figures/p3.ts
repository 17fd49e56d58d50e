// P3 rate-ceiling use: the sandbox allows 100 requests per 5-second window; the ERP node reads
// enough articles (page size 100) to span more than 4 windows. Windows are read from the server's
// side: an accepted answer with RateLimit-Remaining = limit - 1 opens a window (the sandbox starts
// a window at the first request after the previous one ended).
import { readAllWithNode } from '../contenders';
import { startBenchSandbox } from '../sandbox';
import type { RequestRecord } from '../sandbox';
import { summarize } from '../stats';
import type { Summary } from '../stats';
import type { FigureContext } from './types';

export const P3_LIMIT = 100;
export const P3_WINDOW_SECONDS = 5;
/** Issue 30's P3: one Return All of 200 pages at 40 requests per 5 s, alone on its key. */
export const P3_LONE_LIMIT = 40;

export interface WindowCount {
	/** Start of the window, ms after the run's first request. */
	startMs: number;
	accepted: number;
	refused429: number;
}

export interface P3Run {
	requests: number;
	accepted: number;
	refused429: number;
	otherErrors: number;
	failed: boolean;
	error?: string;
	windows: WindowCount[];
	/** Accepted requests per complete window (every window but the last) / limit. */
	perWindowUse: number[];
	/** Accepted requests of the complete windows over the time they took, against the ceiling. */
	sustainedUse: number;
	durationMs: number;
}

export interface P3Result {
	articles: number;
	limit: number;
	windowSeconds: number;
	runs: P3Run[];
	/** Per run: the mean of its complete windows' use. */
	windowUse: Summary;
	sustainedUse: Summary;
	/** Per run: 429 answers / requests. */
	share429: Summary;
	failures: number;
	/** 200 pages at P3_LONE_LIMIT per window: ideal time (idealMs) / the time the run took. */
	lone: { limit: number; runs: P3Run[]; timeUse: Summary; share429: Summary; failures: number };
}

/** Splits a run's log into rate-limit windows and measures how full they were. */
export function analyseWindows(log: RequestRecord[], limit: number, windowSeconds: number): Omit<P3Run, 'failed' | 'error'> {
	const origin = log[0]?.atMs ?? 0;
	const windows: Array<WindowCount & { atMs: number }> = [];
	let refused429 = 0;
	let otherErrors = 0;
	for (const record of log) {
		if (record.status === 200 && record.remaining === limit - 1) {
			windows.push({ atMs: record.atMs, startMs: record.atMs - origin, accepted: 0, refused429: 0 });
		}
		const current = windows[windows.length - 1];
		if (record.status === 200) {
			if (current) current.accepted++;
		} else if (record.status === 429) {
			refused429++;
			if (current) current.refused429++;
		} else {
			otherErrors++;
		}
	}
	const complete = windows.slice(0, -1);
	const perWindowUse = complete.map((w) => w.accepted / limit);
	const spanMs = windows.length > 1 ? windows[windows.length - 1].atMs - windows[0].atMs : 0;
	const acceptedInComplete = complete.reduce((sum, w) => sum + w.accepted, 0);
	const sustainedUse = spanMs > 0 ? acceptedInComplete / ((spanMs / 1000 / windowSeconds) * limit) : 0;
	return {
		requests: log.length,
		accepted: log.filter((r) => r.status === 200).length,
		refused429,
		otherErrors,
		windows: windows.map(({ startMs, accepted, refused429: refused }) => ({ startMs, accepted, refused429: refused })),
		perWindowUse,
		sustainedUse,
		durationMs: log.length > 0 ? log[log.length - 1].atMs - origin : 0,
	};
}

/** Runs one Return All per repetition against a sandbox of `articles` at `limit` per `windowSeconds`. */
async function measureRuns(
	context: FigureContext,
	label: string,
	options: { articles: number; limit: number; windowSeconds: number; repetitions: number },
): Promise<P3Run[]> {
	const { articles, limit, windowSeconds, repetitions } = options;
	const sandbox = await startBenchSandbox({ articles, rateLimit: { limit, windowSeconds } });
	try {
		const runs: P3Run[] = [];
		for (let repetition = 0; repetition < repetitions; repetition++) {
			// A fresh key per run: its own rate-limit bucket on the server and its own pacing state in the node.
			const key = await sandbox.newKey(['articles:read']);
			await sandbox.takeLog();
			let failed = false;
			let error: string | undefined;
			try {
				const { items } = await readAllWithNode(sandbox.baseUrl, key);
				if (items.length !== articles) throw new Error(`read ${items.length} articles, not ${articles}`);
			} catch (e) {
				failed = true;
				error = (e as Error).message;
			}
			const run = { ...analyseWindows(await sandbox.takeLog(), limit, windowSeconds), failed, error };
			runs.push(run);
			context.progress(
				`${label} run ${repetition + 1}/${repetitions}: ${run.requests} requests in ${(run.durationMs / 1000).toFixed(1)} s, windows ${run.windows.map((w) => w.accepted).join('/')}, ` +
					`sustained ${(run.sustainedUse * 100).toFixed(1)} %, 429: ${run.refused429}${failed ? `, FAILED: ${error}` : ''}`,
			);
		}
		return runs;
	} finally {
		await sandbox.close();
	}
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/**
 * The ideal time of `requests` at the limiter's rate (`limit` per window), each one interval after
 * the last (issue 39: spaced evenly, never a burst at a window's opening), as P6's.
 */
export function idealMs(requests: number, limit: number, windowSeconds: number): number {
	return (requests * windowSeconds * 1000) / limit;
}

export async function runP3(context: FigureContext): Promise<P3Result> {
	// 450 requests: 4 complete windows of 100 and a last one of 50.
	const articles = 45_000;
	const repetitions = context.quick ? 1 : 3;
	const runs = await measureRuns(context, 'P3', { articles, limit: P3_LIMIT, windowSeconds: P3_WINDOW_SECONDS, repetitions });
	// Issue 30: one Return All of 200 pages at 40 per 5 s, the time from the first request to the last
	// against the ideal at that rate (25 s).
	const lone = await measureRuns(context, 'P3 200 pages', { articles: 20_000, limit: P3_LONE_LIMIT, windowSeconds: P3_WINDOW_SECONDS, repetitions });
	return {
		articles,
		limit: P3_LIMIT,
		windowSeconds: P3_WINDOW_SECONDS,
		runs,
		windowUse: summarize(runs.map((r) => mean(r.perWindowUse))),
		sustainedUse: summarize(runs.map((r) => r.sustainedUse)),
		share429: summarize(runs.map((r) => (r.requests ? r.refused429 / r.requests : 0))),
		failures: runs.filter((r) => r.failed || r.otherErrors > 0).length,
		lone: {
			limit: P3_LONE_LIMIT,
			runs: lone,
			timeUse: summarize(lone.map((r) => (r.durationMs > 0 ? idealMs(r.accepted, P3_LONE_LIMIT, P3_WINDOW_SECONDS) / r.durationMs : 0))),
			share429: summarize(lone.map((r) => (r.requests ? r.refused429 / r.requests : 0))),
			failures: lone.filter((r) => r.failed || r.otherErrors > 0).length,
		},
	};
}
