/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- drives n8n from outside, not a node */
/**
 * One queue-mode deployment (scripts/queue-mode.ts: main, a webhook processor, 2 workers, Redis,
 * PostgreSQL) for the scenarios of `npm run test:queue` that can share it (issue 38; shared.queue.ts
 * says which, and which keep their own). Starting one costs 4 n8n processes (about 20 s of CPU
 * each) and about 2 minutes on the 2-core machine: paid once for them all.
 *
 * A scenario that shares it never stops, kills or restarts a process and needs no n8n setting of
 * its own; it brings its own sandbox (its rate limit, faults, tokens and counters are its own), its
 * own workflows (own ids and webhook paths) and its own credentials. The demo credential
 * (SANDBOX_CREDENTIAL) points at the first scenario's sandbox.
 *
 * The scenarios run side by side (`test.concurrent`), each one's tests in order: their waits on
 * clocks (token expiry, barriers, counts that must stay quiet) overlap. The tests marked `alone`
 * run once every other test is over, side by side with each other only, so that no other
 * executions take the workers' slots meanwhile (the flash sales' 90 orders keep all 20 busy for
 * minutes, and two orders meant to run at the same moment would not).
 */
import { afterAll, beforeAll, test } from '@jest/globals';

import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../sandbox';
import type { Workflow } from '../../scripts/examples';
import type { Log } from '../../scripts/n8n-env';
import type { CredentialImport } from '../../scripts/n8n-instance';
import { startQueueDeployment, type QueueDeployment } from '../../scripts/queue-mode';

const MINUTE = 60_000;

/** What a scenario's code is given: the shared deployment, its own sandbox, its log. */
export type ScenarioRun = { queue: QueueDeployment; sandbox: SandboxHandle; log: Log };

export type ScenarioTest = {
	name: string;
	timeoutMs: number;
	/** Runs once every test not marked so is over, beside the others marked so only. */
	alone?: boolean;
	run(scenario: ScenarioRun): Promise<void>;
};

type Imports = { workflows: Workflow[]; credentials?: CredentialImport[] };

export type Scenario = {
	/** Its log lines' tag. */
	tag: string;
	/** Its own sandbox's options. */
	sandbox?: SandboxOptions;
	/**
	 * Imported before n8n starts: its workflows and credentials, given its sandbox (and what it
	 * starts for them, such as an nginx in front of the sandbox, stopped by `close`).
	 */
	imports(sandbox: SandboxHandle): Imports | Promise<Imports>;
	/** Once the deployment is stopped: what `imports` started. */
	close?(): Promise<void>;
	/** Once every process runs (before any test): credentials made through n8n, publications. */
	ready?(scenario: ScenarioRun): Promise<void>;
	/** Run in this order. */
	tests: ScenarioTest[];
};

/** For a `*.queue.ts` file: one deployment for `scenarios`, their tests side by side. */
export function useSharedDeployment(scenarios: Scenario[]): void {
	for (const signal of ['SIGINT', 'SIGTERM'] as const)
		process.once(signal, () => process.exit(130));
	const logFor =
		(tag: string): Log =>
		(line) =>
			process.stderr.write(`[${tag}] ${line}\n`);
	const runs: ScenarioRun[] = [];
	let queue: QueueDeployment | undefined;
	const sandboxes: SandboxHandle[] = [];

	beforeAll(async () => {
		for (const scenario of scenarios)
			sandboxes.push(await startSandbox({ port: 0, ...scenario.sandbox }));
		const imports = await Promise.all(scenarios.map(async (s, i) => await s.imports(sandboxes[i])));
		queue = await startQueueDeployment({
			sandboxBaseUrl: sandboxes[0].baseUrl,
			workflows: imports.flatMap((i) => i.workflows),
			credentials: imports.flatMap((i) => i.credentials ?? []),
			log: logFor('queue shared'),
		});
		const q = queue;
		runs.push(
			...scenarios.map((s, i) => ({ queue: q, sandbox: sandboxes[i], log: logFor(s.tag) })),
		);
		await Promise.all(scenarios.map(async (s, i) => await s.ready?.(runs[i])));
	}, 45 * MINUTE);

	afterAll(async () => {
		await queue?.stop();
		for (const scenario of scenarios) await scenario.close?.();
		for (const sandbox of sandboxes) await sandbox.close();
	}, 5 * MINUTE);

	// Each test: over (passed or failed) once `done` resolves; what it waits for; its timeout with
	// its waits (a safety net, never a measure).
	type Step = { test: ScenarioTest; run: number; done: Promise<void>; over(): void; after: Step[] };
	const steps: Step[] = [];
	scenarios.forEach((scenario, run) => {
		for (const t of scenario.tests) {
			let over!: () => void;
			const done = new Promise<void>((resolve) => (over = resolve));
			const previous = steps.length > 0 && steps[steps.length - 1].run === run;
			steps.push({ test: t, run, done, over, after: previous ? [steps[steps.length - 1]] : [] });
		}
	});
	for (const step of steps.filter((s) => s.test.alone))
		step.after.push(...steps.filter((other) => other.run !== step.run && !other.test.alone));
	const timeoutOf = (step: Step): number =>
		step.test.timeoutMs + Math.max(0, ...step.after.map(timeoutOf));
	for (const step of steps) {
		test.concurrent(
			step.test.name,
			async () => {
				await Promise.all(step.after.map(async (before) => await before.done));
				try {
					await step.test.run(runs[step.run]);
				} finally {
					step.over();
				}
			},
			timeoutOf(step),
		);
	}
}
