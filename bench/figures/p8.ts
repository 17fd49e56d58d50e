/* eslint-disable @n8n/community-nodes/no-restricted-globals */
// P8 a burst of events at n8n's own speed: in one real n8n (regular mode, the default version),
// 300 signed deliveries, 20 at a time, to an ERP Trigger with manual registration (the webhook
// secret in the credential; as a new node, version 1.1, and beside it at version 1, as workflows
// made before 1.1 have it), and 300 to n8n's own Webhook node in the same n8n, same run,
// alternated: the time from the first delivery until n8n has recorded every execution as
// finished. Beside them, n8n's Webhook node with Header Auth: n8n's own trigger with a credential,
// which n8n checks and reads for each request as it does for the ERP Trigger. Target (issue 42):
// the ERP Trigger within 1.2× the Webhook node with Header Auth, every delivery run once (each
// accepted, counted at the end and again after a quiet period: no late extra run). Beside the
// times, n8n's own count of the expression isolates it took per delivery (its metric
// expression.pool.acquired, N8N_METRICS on): where the time goes (bench/performance-notes.md).
import { keepFilesOnFailure } from '../../scripts/n8n-instance';
import type { N8nRest } from '../../scripts/n8n-instance';
import { chainWorkflow, sandboxCredential, startE2e } from '../../test/e2e/helpers';
import { signedDelivery } from '../../test/trigger/signed-delivery';
import { processCpuSeconds } from '../process-cpu';
import { fixed, summarize, type Summary } from '../stats';
import type { FigureContext } from './types';

export const P8_TARGET = 1.2;
const CONCURRENCY = 20;
const CREDENTIAL = { id: 'ErpBenchP8Manual', name: 'ERP sandbox (P8 manual secret)' };
const SECRET = `whsec_${Buffer.from('bench-p8-manual-registration-32b').toString('base64')}`;
const ERP = { id: 'ErpBenchP8Trigr1', hookId: '8a4f2c1e-3b5d-4e6f-8a9b-0c1d2e3f4a51' };
const ERP_V1 = { id: 'ErpBenchP8Trigr0', hookId: '8a4f2c1e-3b5d-4e6f-8a9b-0c1d2e3f4a50' };
const WEBHOOK = { id: 'ErpBenchP8Webhk1', hookId: '8a4f2c1e-3b5d-4e6f-8a9b-0c1d2e3f4a52' };
const HEADER_AUTH = { id: 'ErpBenchP8Webhk2', hookId: '8a4f2c1e-3b5d-4e6f-8a9b-0c1d2e3f4a53' };
const HEADER_CREDENTIAL = { id: 'ErpBenchP8Header', name: 'P8 header auth' };
const HEADER = { name: 'X-P8-Key', value: 'p8-header-auth-value' };
export const CONTENDERS = ['webhook', 'erp', 'headerAuth', 'erpV1'] as const;
export type Contender = (typeof CONTENDERS)[number];
export const LABELS: Record<Contender, string> = {
	erp: 'ERP Trigger',
	erpV1: 'ERP Trigger at version 1',
	webhook: 'Webhook node',
	headerAuth: 'Webhook node with Header Auth',
};

export interface P8Result {
	deliveries: number;
	concurrency: number;
	n8nVersion: string;
	/** n8n settings this run set over the defaults (ERP_P8_N8N_ENV), named in every row. */
	n8nSettings?: Record<string, string>;
	/** Seconds until every execution was recorded, per contender and round. */
	seconds: Record<Contender, number[]>;
	/** Seconds until every delivery was answered, per contender and round. */
	answeredSeconds: Record<Contender, number[]>;
	/** ERP Trigger time / Webhook node time, per round (rounds rotate which goes first). */
	ratio: Summary;
	/** Webhook node with Header Auth time / Webhook node time, per round. */
	headerAuthRatio: Summary;
	/** ERP Trigger at version 1 (workflows made before 1.1) time / Webhook node time, per round. */
	v1Ratio?: Summary;
	/**
	 * Milliseconds of CPU n8n's main process used per delivery (its threads, /proc), per contender
	 * and round: what other jobs on a shared machine change far less than the times above.
	 */
	cpuMsPerDelivery?: Record<Contender, number[]>;
	/** ERP Trigger CPU per delivery / Webhook node CPU per delivery, per round. */
	cpuRatio?: Summary;
	/** Expression isolates n8n acquired per delivery (its expression.pool.acquired), per contender. */
	isolatesPerDelivery?: Record<Contender, number>;
	/** Executions recorded per delivery, per contender (1 each), and deliveries not answered 200. */
	runsPerDelivery: Record<Contender, number>;
	refused: number;
}

/** The ERP Trigger with manual registration, at a version of the node. */
const erpTrigger = (workflow: { id: string; hookId: string }, typeVersion: number) =>
	chainWorkflow(workflow.id, `P8: ERP Trigger ${typeVersion} (manual registration)`, [
		{
			name: 'ERP Trigger',
			type: 'n8n-nodes-erp.erpTrigger',
			typeVersion,
			webhookId: workflow.hookId,
			credentials: { erpApi: CREDENTIAL },
			parameters: { registration: 'manual', events: ['*'] },
		},
	]);

/** A workflow of one node each: the ERP Trigger (as a new node, and at version 1), n8n's Webhook node. */
function workflows() {
	return [
		erpTrigger(ERP, 1.1),
		erpTrigger(ERP_V1, 1),
		chainWorkflow(WEBHOOK.id, "P8: n8n's Webhook node", [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				webhookId: WEBHOOK.hookId,
				parameters: { httpMethod: 'POST', path: 'p8-webhook', options: {} },
			},
		]),
		chainWorkflow(HEADER_AUTH.id, "P8: n8n's Webhook node with Header Auth", [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				webhookId: HEADER_AUTH.hookId,
				credentials: { httpHeaderAuth: HEADER_CREDENTIAL },
				parameters: {
					httpMethod: 'POST',
					path: 'p8-webhook-auth',
					authentication: 'headerAuth',
					options: {},
				},
			},
		]),
	];
}

/** The workflow's executions n8n has recorded as finished successfully. */
async function finishedRuns(rest: N8nRest, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['success'] }));
	const data = await rest.request<{ count: number }>(
		'GET',
		`/rest/executions?filter=${filter}&limit=1`,
	);
	return data.count;
}

/** n8n's count of expression isolates acquired so far (Prometheus, N8N_METRICS=true). */
async function isolatesAcquired(baseUrl: string): Promise<number> {
	const text = await (await fetch(`${baseUrl}/metrics`)).text();
	const line = /^n8n_expression_pool_acquired_total(?:\{[^}]*\})? ([0-9.e+]+)$/m.exec(text);
	if (line === null) throw new Error('P8: n8n_expression_pool_acquired_total not in /metrics');
	return Number(line[1]);
}

/**
 * Posts `count` signed deliveries to `url`, CONCURRENCY at a time, and waits until n8n has
 * recorded `expectedTotal` finished executions of the workflow; gives the seconds it took and
 * the deliveries not answered 200.
 */
async function burst(
	rest: N8nRest,
	target: { url: string; workflowId: string; headers?: Record<string, string> },
	count: number,
	expectedTotal: number,
	tag: string,
): Promise<{ seconds: number; answeredSeconds: number; refused: number }> {
	const deliveries = Array.from({ length: count }, (_, i) =>
		signedDelivery(SECRET, { id: `evt_p8_${tag}_${i}`, type: 'stock.bas' }),
	);
	let next = 0;
	let refused = 0;
	const started = performance.now();
	const sender = async () => {
		while (next < deliveries.length) {
			const delivery = deliveries[next++];
			const response = await fetch(target.url, {
				method: 'POST',
				headers: { ...delivery.headers, ...target.headers },
				body: delivery.body,
				signal: AbortSignal.timeout(120_000),
			});
			await response.arrayBuffer();
			if (response.status !== 200) refused++;
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, sender));
	const answeredSeconds = (performance.now() - started) / 1000;
	const deadline = Date.now() + 10 * 60_000;
	while ((await finishedRuns(rest, target.workflowId)) < expectedTotal) {
		if (Date.now() > deadline) throw new Error(`P8 ${tag}: executions not all recorded in 10 min`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return { seconds: (performance.now() - started) / 1000, answeredSeconds, refused };
}

export async function runP8(context: FigureContext): Promise<P8Result> {
	const deliveries = context.quick ? 60 : 300;
	const rounds = context.quick ? 1 : 2;
	const log = (line: string) => context.progress(`P8 ${line}`);
	const files = keepFilesOnFailure(log);
	// ERP_P8_PROFILE=<folder>: n8n writes a V8 CPU profile there when it stops (where the time goes).
	const profile = process.env.ERP_P8_PROFILE;
	// ERP_P8_N8N_ENV='NAME=value ...': n8n settings over the defaults, to see what they change.
	const settings = Object.fromEntries(
		(process.env.ERP_P8_N8N_ENV ?? '')
			.split(/\s+/)
			.filter((pair) => /^[A-Z0-9_]+=/.test(pair))
			.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
	);
	const e2e = await startE2e({
		folderPrefix: 'n8n-nodes-erp-bench-p8-',
		log,
		files,
		extraEnv: {
			N8N_METRICS: 'true',
			...settings,
			...(profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile}` } : {}),
		},
		workflows: () => workflows(),
		credentials: async ({ sandbox }) => [
			sandboxCredential(CREDENTIAL, sandbox, { webhookSecret: SECRET }),
			{ ...HEADER_CREDENTIAL, type: 'httpHeaderAuth', data: { ...HEADER } },
		],
	});
	try {
		const rest = e2e.rest;
		for (const id of [ERP.id, ERP_V1.id, WEBHOOK.id, HEADER_AUTH.id]) await rest.activate(id);
		const base = e2e.n8n!.url;
		const targets: Record<Contender, Parameters<typeof burst>[1]> = {
			erp: { url: `${base}/webhook/${ERP.hookId}/erp`, workflowId: ERP.id },
			erpV1: { url: `${base}/webhook/${ERP_V1.hookId}/erp`, workflowId: ERP_V1.id },
			webhook: { url: `${base}/webhook/p8-webhook`, workflowId: WEBHOOK.id },
			headerAuth: {
				url: `${base}/webhook/p8-webhook-auth`,
				workflowId: HEADER_AUTH.id,
				headers: { [HEADER.name]: HEADER.value },
			},
		};
		const perContender = () =>
			({ erp: [], webhook: [], headerAuth: [], erpV1: [] }) as Record<Contender, number[]>;
		// Warm-up: a few deliveries each (first loads, compiled paths), counted in the totals.
		const warm = 5;
		for (const name of CONTENDERS) await burst(rest, targets[name], warm, warm, `warm_${name}`);
		const seconds = perContender();
		const answered = perContender();
		const isolates = perContender();
		const cpuMs = perContender();
		const cpuNow = () => processCpuSeconds(e2e.n8n!.pid) ?? Number.NaN;
		let refused = 0;
		for (let round = 0; round < rounds; round++) {
			// Each round starts with the next contender.
			const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length]);
			for (const name of order) {
				const total = warm + deliveries * (round + 1);
				log(`round ${round + 1}: ${deliveries} deliveries to the ${LABELS[name]}`);
				const acquiredBefore = await isolatesAcquired(base);
				const cpuBefore = cpuNow();
				const result = await burst(rest, targets[name], deliveries, total, `${name}_${round}`);
				cpuMs[name].push(((cpuNow() - cpuBefore) * 1000) / deliveries);
				isolates[name].push(((await isolatesAcquired(base)) - acquiredBefore) / deliveries);
				seconds[name].push(result.seconds);
				answered[name].push(result.answeredSeconds);
				refused += result.refused;
				log(
					`${LABELS[name]}: answered in ${fixed(1)(result.answeredSeconds)} s, recorded in ${fixed(1)(result.seconds)} s`,
				);
			}
		}
		// Exactly once: no late extra execution after a quiet period.
		await new Promise((resolve) => setTimeout(resolve, 5000));
		const total = warm + deliveries * rounds;
		const runsPerDelivery = {} as Record<Contender, number>;
		for (const name of CONTENDERS)
			runsPerDelivery[name] = (await finishedRuns(rest, targets[name].workflowId)) / total;
		const against = (name: Contender) =>
			summarize(seconds[name].map((s, i) => s / seconds.webhook[i]));
		return {
			deliveries,
			concurrency: CONCURRENCY,
			n8nVersion: e2e.config.env.version,
			n8nSettings: Object.keys(settings).length > 0 ? settings : undefined,
			seconds,
			answeredSeconds: answered,
			isolatesPerDelivery: Object.fromEntries(
				CONTENDERS.map((name) => [name, summarize(isolates[name]).median]),
			) as Record<Contender, number>,
			cpuMsPerDelivery: cpuMs,
			cpuRatio: summarize(cpuMs.erp.map((ms, i) => ms / cpuMs.webhook[i])),
			ratio: against('erp'),
			headerAuthRatio: against('headerAuth'),
			v1Ratio: against('erpV1'),
			runsPerDelivery,
			refused,
		};
	} finally {
		await e2e.stop();
	}
}
