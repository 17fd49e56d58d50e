/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// `npm run bench`: every benchmark figure of the project, with its target beside it.
//
//   npx tsx bench/run.ts [--quick] [--skip-test-time] [--only P1,P3,P4,P5,P6,P8,test]
//
// Starts its own sandboxes, prints a markdown table on stdout (progress on stderr) and writes
// bench/results/<timestamp>.json and bench/results/latest.json, then publishes the figures it
// measured: docs/performance.md (bench/page.ts). Timings never fail the run: the exit code is
// non-zero only when a figure crashed.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { runP1 } from './figures/p1';
import { runP3 } from './figures/p3';
import { runP4 } from './figures/p4';
import { runP5 } from './figures/p5';
import { runP6 } from './figures/p6';
import { runP8 } from './figures/p8';
import { runTestTime } from './figures/test-time';
import type { FigureContext } from './figures/types';
import { describeMachine } from './machine';
import { publish } from './page';
import { renderTable } from './report';
import type { BenchResults } from './report';

const FIGURES = ['P1', 'P3', 'P4', 'P5', 'P6', 'P8', 'test'] as const;
type FigureName = (typeof FIGURES)[number];

function parseArgs(argv: string[]): { quick: boolean; skipTestTime: boolean; only?: FigureName[] } {
	const options: { quick: boolean; skipTestTime: boolean; only?: FigureName[] } = { quick: false, skipTestTime: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--quick') options.quick = true;
		else if (arg === '--skip-test-time') options.skipTestTime = true;
		else if (arg === '--only' || arg.startsWith('--only=')) {
			const value = arg.startsWith('--only=') ? arg.slice('--only='.length) : argv[++i] ?? '';
			const names = value.split(',').map((name) => name.trim()).filter(Boolean);
			const unknown = names.filter((name) => !FIGURES.includes(name as FigureName));
			if (unknown.length > 0) throw new Error(`unknown figure(s) ${unknown.join(', ')}; choose from ${FIGURES.join(', ')}`);
			options.only = names as FigureName[];
		} else if (arg === '--help' || arg === '-h') {
			process.stdout.write('Usage: npm run bench -- [--quick] [--skip-test-time] [--only P1,P3,P4,P5,P6,P8,test]\n');
			process.exit(0);
		} else {
			throw new Error(`unknown option ${arg}`);
		}
	}
	return options;
}

async function main(): Promise<number> {
	const options = parseArgs(process.argv.slice(2));
	const results: BenchResults = {
		startedAt: new Date().toISOString(),
		machine: describeMachine(),
		options,
		errors: {},
	};
	const context: FigureContext = {
		quick: options.quick,
		progress: (line) => process.stderr.write(`[bench] ${line}\n`),
	};
	const wanted = (name: FigureName) =>
		(options.only === undefined || options.only.includes(name)) && !(name === 'test' && options.skipTestTime);

	const steps: Array<[FigureName, () => Promise<void>]> = [
		['P1', async () => void (results.p1 = await runP1(context))],
		['P3', async () => void (results.p3 = await runP3(context))],
		['P4', async () => void (results.p4 = await runP4(context))],
		['P5', async () => void (results.p5 = await runP5(context))],
		['P6', async () => void (results.p6 = await runP6(context))],
		['P8', async () => void (results.p8 = await runP8(context))],
		// Last, alone: the suite's time is not disturbed by the other figures.
		['test', async () => void (results.testTime = await runTestTime(context))],
	];
	for (const [name, step] of steps) {
		if (!wanted(name)) continue;
		context.progress(`${name}...`);
		try {
			await step();
		} catch (error) {
			results.errors[name] = (error as Error)?.message ?? String(error);
			context.progress(`${name} crashed: ${String((error as Error)?.stack ?? error)}`);
		}
	}
	results.finishedAt = new Date().toISOString();

	const table = renderTable(results);
	process.stdout.write(`\n${table}`);
	const folder = path.join(__dirname, 'results');
	mkdirSync(folder, { recursive: true });
	const json = `${JSON.stringify({ ...results, table }, null, '\t')}\n`;
	const file = path.join(folder, `${results.startedAt.replace(/[:.]/g, '-')}.json`);
	writeFileSync(file, json);
	writeFileSync(path.join(folder, 'latest.json'), json);
	process.stdout.write(`\nResults: ${path.relative(process.cwd(), file)} (and bench/results/latest.json)\n`);
	process.stdout.write(`Page: ${publish(results)} (the figures of this run; the others as before)\n`);
	// A figure missing its target is a finding, not a failure; only a crash is.
	return Object.keys(results.errors).length > 0 ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`bench failed: ${String((error as Error)?.stack ?? error)}\n`);
		process.exit(1);
	},
);
