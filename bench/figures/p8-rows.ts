// P8's rows in the bench table (bench/report.ts), from a run of bench/figures/p8.ts.
import { fixed, formatSummary, summarize } from '../stats';
import { CONTENDERS, LABELS, P8_TARGET, type Contender, type P8Result } from './p8';

/** P8's rows in the bench table (bench/report.ts). */
export function p8Rows(p8: P8Result): Array<[string, string, string, string]> {
	const met = (ok: boolean) => (ok ? 'yes' : '**no**');
	const times = (name: Contender) =>
		p8.seconds[name]
			.map((v, i) => `${fixed(1)(v)} s (${fixed(1)(p8.answeredSeconds[name][i])} s)`)
			.join(', ');
	const settings = Object.entries(p8.n8nSettings ?? {}).map(([name, value]) => `${name}=${value}`);
	const head = `P8 ${p8.deliveries} signed deliveries, ${p8.concurrency} at a time, n8n ${p8.n8nVersion}${settings.length > 0 ? ` with ${settings.join(' ')}` : ''}`;
	// Runs before version 1.1 of the ERP Trigger measured three contenders, without erpV1.
	const present = CONTENDERS.filter((name) => p8.seconds[name] !== undefined);
	const isolates = p8.isolatesPerDelivery;
	// Runs before this figure counted isolates have no such row.
	const isolateRows: Array<[string, string, string, string]> = isolates
		? [
				[
					`${head} · expression isolates n8n acquired per delivery, its own count (${present.map((name) => LABELS[name]).join(' / ')})`,
					present.map((name) => fixed(2)(isolates[name])).join(' / '),
					'',
					'',
				],
			]
		: [];
	const cpu = p8.cpuMsPerDelivery;
	// Runs before this figure read n8n's CPU time have no such rows.
	const cpuRows: Array<[string, string, string, string]> =
		cpu && p8.cpuRatio
			? [
					[
						`${head} · CPU of n8n's process per delivery, ERP Trigger / Webhook node (other jobs on the machine change it far less than the times)`,
						formatSummary(p8.cpuRatio, (v) => `${fixed(2)(v)}×`),
						'',
						'',
					],
					[
						`${head} · CPU of n8n's process per delivery, per round (${present.map((name) => LABELS[name]).join(' / ')})`,
						present
							.map((name) => cpu[name].map((ms) => `${fixed(1)(ms)} ms`).join(', '))
							.join(' / '),
						'',
						'',
					],
				]
			: [];
	const once = present.every((name) => p8.runsPerDelivery[name] === 1) && p8.refused === 0;
	const v1Rows: Array<[string, string, string, string]> = p8.v1Ratio
		? [
				[
					`${head} · the ERP Trigger at version 1 (workflows made before 1.1: n8n evaluates an expression for each request) time / Webhook node time`,
					formatSummary(p8.v1Ratio, (v) => `${fixed(2)(v)}×`),
					'',
					'',
				],
			]
		: [];
	// The target (issue 42): against n8n's own node with a credential, which n8n checks and reads
	// for each request as it does for the ERP Trigger; per round, from the times of that round.
	const fair = summarize(p8.seconds.erp.map((s, i) => s / p8.seconds.headerAuth[i]));
	return [
		[
			`${head} · ERP Trigger (manual registration${p8.v1Ratio ? ', a new node: version 1.1' : ''}) time / Webhook node with Header Auth (a credential) time, until every execution is recorded`,
			formatSummary(fair, (v) => `${fixed(2)(v)}×`),
			`≤ ${P8_TARGET}×`,
			met(fair.median <= P8_TARGET),
		],
		[
			`${head} · ERP Trigger time / Webhook node time`,
			formatSummary(p8.ratio, (v) => `${fixed(2)(v)}×`),
			'',
			'',
		],
		[
			`${head} · n8n's Webhook node with Header Auth (a credential) time / Webhook node time`,
			formatSummary(p8.headerAuthRatio, (v) => `${fixed(2)(v)}×`),
			'',
			'',
		],
		...v1Rows,
		...present.map((name): [string, string, string, string] => [
			`${head} · ${LABELS[name]}, per round: every execution recorded (every delivery answered)`,
			times(name),
			'',
			'',
		]),
		...cpuRows,
		...isolateRows,
		[
			`${head} · executions per delivery (${present.map((name) => LABELS[name]).join(' / ')}), deliveries not answered 200`,
			`${present.map((name) => p8.runsPerDelivery[name]).join(' / ')}, ${p8.refused}`,
			'1 each, 0',
			met(once),
		],
	];
}
