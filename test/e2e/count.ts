/* eslint-disable @n8n/community-nodes/no-restricted-globals -- drives n8n from outside, not a node */
/**
 * The one way the real-n8n layer counts what happens after something asynchronous (executions,
 * deliveries, chat messages, sandbox requests): `expectCount` waits until the count reaches the
 * expected number, then watches a quiet period in which a late extra would show, and fails on
 * either side:
 * - too few by the deadline: "Timed out after N s waiting for <what>: counted k of n";
 * - more than expected at any moment, before or during the quiet period.
 * A reading may also say it is not settled yet (an execution still running), which holds the
 * count back from being accepted until it is.
 *
 * `expectRuns` counts a workflow's executions as n8n lists them, finished or not, so that an
 * execution n8n created but has not finished counts at once, and one n8n creates a moment after
 * the webhook answered (n8n answers before it records the run) shows in the quiet period.
 */
import type { N8nRest } from '../../scripts/n8n-instance';

export type Reading<T> = {
	count: number;
	/** False while what was counted is still changing (e.g. an execution still running). */
	settled?: boolean;
	/** What was counted, returned to the caller and shown in failure messages. */
	detail?: T;
};

export type CountOptions = {
	/** How long the count may take to reach the expected number (default 60 s). */
	deadlineMs?: number;
	/** How long the count must then stay exactly at the expected number (default 4 s). */
	quietMs?: number;
	/** Time between two readings (default 250 ms). */
	pollMs?: number;
};

export const COUNT_DEFAULTS = { deadlineMs: 60_000, quietMs: 4_000, pollMs: 250 };

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
const show = (detail: unknown) =>
	detail === undefined ? '' : `: ${JSON.stringify(detail).slice(0, 2000)}`;

/**
 * Waits until `read()` counts exactly `expected` (and says it is settled), then checks that the
 * count stays there for the quiet period. Resolves with the last reading's detail.
 */
export async function expectCount<T>(
	what: string,
	expected: number,
	read: () => Promise<Reading<T>>,
	options: CountOptions = {},
): Promise<T | undefined> {
	const { deadlineMs, quietMs, pollMs } = { ...COUNT_DEFAULTS, ...options };
	const tooMany = (reading: Reading<T>, when: string) =>
		new Error(
			`Counted ${reading.count} ${what} ${when}, expected exactly ${expected}${show(reading.detail)}`,
		);
	const started = Date.now();
	let quietSince: number | undefined;
	for (;;) {
		const reading = await read();
		if (reading.count > expected) {
			throw tooMany(
				reading,
				quietSince === undefined
					? 'before the quiet period'
					: `during the ${quietMs / 1000} s quiet period`,
			);
		}
		if (reading.count === expected && reading.settled !== false) {
			quietSince ??= Date.now();
			if (Date.now() - quietSince >= quietMs) return reading.detail;
		} else {
			// Not there (yet, or for a moment again): the quiet period starts over.
			quietSince = undefined;
			if (Date.now() - started > deadlineMs) {
				throw new Error(
					`Timed out after ${deadlineMs / 1000} s waiting for ${what}: counted ${reading.count} of ${expected}` +
						`${reading.settled === false ? ' (not settled)' : ''}${show(reading.detail)}`,
				);
			}
		}
		await pause(pollMs);
	}
}

/**
 * A baseline for a later `expectCount`, where the count so far is not known (e.g. after other
 * tests): the reading once it is settled and has not changed for the quiet period.
 */
export async function stableCount<T>(
	what: string,
	read: () => Promise<Reading<T>>,
	options: CountOptions = {},
): Promise<Reading<T>> {
	const { deadlineMs, quietMs, pollMs } = { ...COUNT_DEFAULTS, ...options };
	const started = Date.now();
	let reading = await read();
	let since = Date.now();
	for (;;) {
		if (reading.settled !== false && Date.now() - since >= quietMs) return reading;
		if (Date.now() - started > deadlineMs) {
			throw new Error(
				`Timed out after ${deadlineMs / 1000} s waiting for ${what} to settle: last counted ${reading.count}${show(reading.detail)}`,
			);
		}
		await pause(pollMs);
		const next = await read();
		if (next.count !== reading.count || next.settled === false) since = Date.now();
		reading = next;
	}
}

export type Run = { id: string; status: string; mode: string };

const UNFINISHED = ['new', 'running', 'waiting'];

/** What one reading of n8n's execution list can hold (its page size is at most 100). */
const MAX_RUNS = 100;

/**
 * A workflow's executions as n8n lists them (running ones first, then finished ones, newest
 * first), each once: n8n reads the two groups apart, so one that finished in between may be in both.
 */
export async function readRuns(rest: N8nRest, workflowId: string): Promise<Reading<Run[]>> {
	const listed = await rest.executions(workflowId, MAX_RUNS);
	const runs = [...new Map(listed.map((run) => [run.id, run])).values()];
	if (runs.length >= MAX_RUNS)
		throw new Error(`workflow ${workflowId} has ${MAX_RUNS} executions or more: too many to count`);
	return {
		count: runs.length,
		settled: runs.every((r) => !UNFINISHED.includes(r.status)),
		detail: runs,
	};
}

/**
 * Exactly `expected` executions of the workflow, all finished, and no other for the quiet
 * period. Resolves with them, newest first.
 */
export async function expectRuns(
	rest: N8nRest,
	workflowId: string,
	expected: number,
	options: CountOptions = {},
): Promise<Run[]> {
	const runs = await expectCount(
		`executions of workflow ${workflowId}`,
		expected,
		async () => await readRuns(rest, workflowId),
		options,
	);
	return runs ?? [];
}

/** How many executions the workflow has once they are all finished and no other comes. */
export async function stableRunCount(rest: N8nRest, workflowId: string): Promise<number> {
	const reading = await stableCount(
		`executions of workflow ${workflowId}`,
		async () => await readRuns(rest, workflowId),
	);
	return reading.count;
}
