/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// P6 many executions, one rate budget: a burst of N concurrent order-to-invoice executions, all
// with one key, against the sandbox (in its own process) with a fixed window at the
// specification's 100 per minute. Reports requests per order, the share answered 429, ceiling use
// (of the windows the burst filled, the share of the limit used) and the time to drain against
// the ideal at the limiter's rate (every accepted request one interval after the last). Side by
// side: one process (n8n-core's engine through the harness) once per rate-limit header dialect
// the sandbox speaks (none: Retry-After only; bare: a bare 429) and against a bare 429 with the
// credential's Rate Limit (Requests per Minute) set to the server's, two processes (two harness
// processes, same key), real n8n in queue mode (main, webhook processor, 2 workers; skipped by
// --quick), and the flash sale against each algorithm the sandbox plays (fixed window, sliding
// window, token bucket; headers, Retry-After only, bare; one process and two workers; a bare
// token bucket in front of the ERP's headers) in the fake-time simulation (p6-simulated.ts).
import { fork } from 'node:child_process';
import path from 'node:path';

import { EXAMPLE_IDS, loadExamples, wireExample } from '../../scripts/examples';
import {
	checkBurst,
	freshKey,
	postOrders,
	prepareBurst,
	sandboxStats,
} from '../../scripts/order-burst';
import type { BurstPlan, BurstReport } from '../../scripts/order-burst';
import { startQueueDeployment } from '../../scripts/queue-mode';
import { RATE_LIMIT_HEADER_DIALECTS } from '../../sandbox';
import type { RateLimitHeaderDialect } from '../../sandbox';
import { runBurstInProcess } from '../../test/transport/order-burst';
import { startBenchSandbox } from '../sandbox';
import type { BenchSandbox } from '../sandbox';
import { idealMs } from './p3';
import { runP6Simulated } from './p6-simulated';
import type { P6SimulatedRow } from './p6-simulated';
import type { FigureContext } from './types';

/** The specification's 100 per minute (issue 39: the flash sale at the limiter's rate). */
export const P6_LIMIT = 100;
export const P6_WINDOW_SECONDS = 60;

export interface P6Scenario {
	name: string;
	/** The header dialect the sandbox spoke. */
	dialect: RateLimitHeaderDialect;
	/** The credential's Rate Limit (Requests per Minute), when set. */
	ratePerMinute?: number;
	/** Several processes (queue mode): the targets of those rows apply. */
	queue?: boolean;
	/** One process (n8n-core through the harness): the targets of the single-process rows apply. */
	single: boolean;
	orders: number;
	failed: number;
	report: BurstReport;
	drainMs: number;
	idealMs: number;
}

export interface P6Result {
	limit: number;
	windowSeconds: number;
	scenarios: P6Scenario[];
	/** Why a scenario was left out. */
	skipped: Record<string, string>;
	/** The bare-429 rows in fake time (p6-simulated.ts). */
	simulated: P6SimulatedRow[];
}

type Run = { failed: number; errors: string[]; drainMs: number };

async function scenario(
	sandbox: BenchSandbox,
	name: string,
	orders: number,
	context: FigureContext,
	run: (plan: BurstPlan, key: string) => Promise<Run>,
	options: {
		key?: string;
		dialect?: RateLimitHeaderDialect;
		single?: boolean;
		queue?: boolean;
		ratePerMinute?: number;
	} = {},
): Promise<P6Scenario> {
	const { key, dialect = 'ietf-fields', single = false, queue, ratePerMinute } = options;
	context.progress(`P6 ${name}: ${orders} orders at ${P6_LIMIT} per ${P6_WINDOW_SECONDS} s...`);
	const workflowKey = key ?? (await freshKey(sandbox, `p6 ${name}`));
	const plan = await prepareBurst(sandbox, {
		count: orders,
		tag: `P6${name.replace(/\W/g, '').slice(0, 8).toUpperCase()}${Date.now() % 100000}`,
		limit: P6_LIMIT,
		windowSeconds: P6_WINDOW_SECONDS,
		headers: dialect,
	});
	const before = await sandboxStats(sandbox);
	const result = await run(plan, workflowKey);
	const report = await checkBurst(sandbox, plan, before);
	if (result.errors.length > 0)
		context.progress(`P6 ${name}: ${result.errors.length} failed, first: ${result.errors[0]}`);
	return {
		name,
		dialect,
		ratePerMinute,
		queue,
		single,
		orders,
		failed: result.failed,
		report,
		drainMs: result.drainMs,
		// At the limiter's rate: every accepted request one interval after the last.
		idealMs: idealMs(report.requests - report.refused, P6_LIMIT, P6_WINDOW_SECONDS),
	};
}

/** Half the orders each in two child processes, started together. */
async function twoProcesses(baseUrl: string, key: string, plan: BurstPlan): Promise<Run> {
	const halves = [
		plan.orders.filter((_, i) => i % 2 === 0),
		plan.orders.filter((_, i) => i % 2 === 1),
	];
	const children = halves.map(() =>
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- the benchmark runs measured code in child processes
		fork(path.join(__dirname, 'p6-child.ts'), [baseUrl, key], {
			execArgv: ['--import', 'tsx'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		}),
	);
	await Promise.all(
		children.map((child) => new Promise((resolve) => child.once('message', resolve))),
	);
	const started = Date.now();
	const results = await Promise.all(
		children.map(
			(child, i) =>
				new Promise<Run>((resolve, reject) => {
					child.once('message', (message) => resolve(message as Run));
					child.once('exit', (code) => reject(new Error(`P6 child exited with ${code}`)));
					child.send({ ...plan, orders: halves[i] });
				}),
		),
	);
	return {
		failed: results.reduce((n, r) => n + r.failed, 0),
		errors: results.flatMap((r) => r.errors),
		drainMs: Date.now() - started,
	};
}

/** What the server says with its limit, in a scenario's name. */
const serverName = (dialect: RateLimitHeaderDialect) =>
	dialect === 'none'
		? 'no headers (Retry-After only)'
		: dialect === 'bare'
			? 'a bare 429 (no header at all)'
			: `${dialect} headers`;

/** The credential's rate set to the server's: P6_LIMIT per P6_WINDOW_SECONDS, per minute. */
export const P6_RATE_PER_MINUTE = (P6_LIMIT * 60) / P6_WINDOW_SECONDS;

export async function runP6(context: FigureContext): Promise<P6Result> {
	const orders = context.quick ? 12 : 30;
	const sandbox = await startBenchSandbox({ port: 0 });
	const result: P6Result = {
		limit: P6_LIMIT,
		windowSeconds: P6_WINDOW_SECONDS,
		scenarios: [],
		skipped: {},
		simulated: runP6Simulated(),
	};
	try {
		for (const dialect of RATE_LIMIT_HEADER_DIALECTS) {
			result.scenarios.push(
				await scenario(
					sandbox,
					`one process, ${serverName(dialect)}`,
					orders,
					context,
					async (plan, key) => await runBurstInProcess(sandbox.baseUrl, key, plan),
					{ dialect, single: true },
				),
			);
		}
		result.scenarios.push(
			await scenario(
				sandbox,
				`one process, ${serverName('bare')}, credential's rate ${P6_RATE_PER_MINUTE} per minute`,
				orders,
				context,
				async (plan, key) =>
					await runBurstInProcess(sandbox.baseUrl, key, plan, {
						rateLimitPerMinute: P6_RATE_PER_MINUTE,
					}),
				{ dialect: 'bare', single: true, ratePerMinute: P6_RATE_PER_MINUTE },
			),
		);
		result.scenarios.push(
			await scenario(
				sandbox,
				'two processes',
				orders,
				context,
				async (plan, key) => await twoProcesses(sandbox.baseUrl, key, plan),
			),
		);
		if (context.quick) {
			result.skipped['queue mode'] = 'left out by --quick';
		} else {
			const workflows = loadExamples()
				.map(({ workflow }) => workflow)
				.filter((w) => w.id === EXAMPLE_IDS.orderToInvoice)
				.map((w) => wireExample(w, { chatUrl: 'http://127.0.0.1:9/unused' }));
			const webhookPath = String(
				workflows[0].nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!.parameters.path,
			);
			const queue = await startQueueDeployment({
				sandboxBaseUrl: sandbox.baseUrl,
				workflows,
				log: (line) => context.progress(`P6 queue: ${line}`),
			});
			try {
				await queue.rest.activate(EXAMPLE_IDS.orderToInvoice);
				const queueOrders = context.quick ? 12 : 40;
				// A dialect that reports the budget, a server with Retry-After only, a bare 429.
				for (const dialect of ['ietf-fields', 'none', 'bare'] as const) {
					result.scenarios.push(
						await scenario(
							sandbox,
							`queue mode, 2 workers, ${serverName(dialect)}`,
							queueOrders,
							context,
							async (plan) => {
								const started = Date.now();
								const answers = await postOrders(
									`${queue.webhookUrl}/webhook/${webhookPath}`,
									plan,
								);
								const drainMs = Date.now() - started;
								// Newest first: this burst's executions.
								const executions = (
									await queue.rest.executions(EXAMPLE_IDS.orderToInvoice, 100)
								).slice(0, plan.orders.length);
								const errors = [
									...answers
										.filter((a) => a.status !== 200)
										.map((a) => `${a.status} ${a.text.slice(0, 200)}`),
									...executions
										.filter((e) => e.status !== 'success')
										.map((e) => `execution ${e.id}: ${e.status}`),
								];
								return {
									failed: Math.max(
										answers.filter((a) => a.status !== 200).length,
										executions.filter((e) => e.status !== 'success').length,
									),
									errors,
									drainMs,
								};
							},
							{ key: 'sk_test_demo_full', dialect, queue: true },
						),
					);
				}
			} finally {
				await queue.stop();
			}
		}
	} finally {
		await sandbox.close();
	}
	return result;
}
