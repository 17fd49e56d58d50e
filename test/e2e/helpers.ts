/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- drives n8n from outside, not a node */
/**
 * What the end-to-end files share: the start of an n8n instance with the packed package and the
 * sandbox (`startE2e`), the sandbox's API with the demo key (`erp`), and polling (`waitFor`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import type { SandboxOptions } from '../../sandbox';
import { demoCredential, importWorkflowFiles, type Workflow } from '../../scripts/examples';
import { type Log, n8nMajor, n8nVersion } from '../../scripts/n8n-env';
import {
	type CredentialImport,
	freePort,
	importCredentials,
	keepFilesOnFailure,
	type N8nConfig,
	N8nRest,
	shareSession,
	prepareInstance,
	type RunningN8n,
	startN8n,
} from '../../scripts/n8n-instance';
import { keepSharedN8n, sharedN8n, type SharedN8n } from './shared-n8n';

export const MINUTE = 60_000;

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** JSON from the sandbox or an n8n webhook: the tests check it field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiJson = any;

/** A log for an e2e file: lines on stderr, tagged. */
export function e2eLog(tag: string): Log {
	return (line: string) => process.stderr.write(`[${tag}] ${line}\n`);
}

/** The sandbox's API with the demo key (every scope). */
export async function erp(
	sandbox: Sandbox,
	route: string,
	init: { method?: string; body?: unknown } = {},
): Promise<ApiJson> {
	const response = await fetch(`${sandbox.baseUrl}${route}`, {
		method: init.method ?? 'GET',
		headers: { authorization: `Bearer ${DEMO_KEYS.full}`, 'content-type': 'application/json' },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	const text = await response.text();
	assert.ok(response.ok, `sandbox ${route} answered ${response.status}: ${text}`);
	return text ? JSON.parse(text) : undefined;
}

/**
 * An API key credential for the file's sandbox (its demo key, every scope), with `data` over
 * those fields: a credential as a user fills it in for their ERP.
 */
export function sandboxCredential(
	ref: { id: string; name: string },
	sandbox: Sandbox,
	data: Record<string, unknown> = {},
): CredentialImport {
	return {
		...ref,
		type: 'erpApi',
		data: { environment: 'sandbox', baseUrl: sandbox.baseUrl, apiKey: DEMO_KEYS.full, ...data },
	};
}

/** n8n lists our nodes (the AI-tool variant included) and both credentials among its types. */
export async function assertPackLoaded(rest: N8nRest): Promise<void> {
	const nodeTypes = (await rest.request<Array<{ name: string }>>('GET', '/types/nodes.json')).map(
		(n) => n.name,
	);
	for (const name of ['n8n-nodes-erp.erp', 'n8n-nodes-erp.erpTrigger', 'n8n-nodes-erp.erpTool'])
		assert.ok(nodeTypes.includes(name), `${name} is not among n8n's node types`);
	const credentialTypes = (
		await rest.request<Array<{ name: string }>>('GET', '/types/credentials.json')
	).map((c) => c.name);
	assert.ok(credentialTypes.includes('erpApi'), 'erpApi is not among the credential types');
	assert.ok(credentialTypes.includes('erpOAuth2Api'), 'erpOAuth2Api is not among them');
}

/** Polls `check` until it returns a value other than undefined, for at most `timeoutMs`. */
export async function waitFor<T>(
	what: string,
	check: () => Promise<T | undefined>,
	timeoutMs = 30_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** One e2e file's n8n: its user folder and config, the sandbox, and (once started) n8n. */
export type E2e = {
	userFolder: string;
	config: N8nConfig;
	sandbox: Sandbox;
	n8n?: RunningN8n;
	rest: N8nRest;
	/**
	 * Starts n8n (again, after a stop) and signs in as the owner; the first start makes the
	 * file's credentials and workflows.
	 */
	start(): Promise<'created' | 'signed-in'>;
	/** Makes a credential, or replaces the one of that id (as `n8n import:credentials` does). */
	setCredential(credential: CredentialImport): Promise<void>;
	/** For afterAll: stops n8n and the sandbox, then keeps or removes the user folder. */
	stop(logFile?: 'n8n' | 'setup'): Promise<void>;
};

/** What startE2e takes. */
type E2eOptions = {
	folderPrefix: string;
	log: Log;
	/** The file's keepFilesOnFailure: its tracked tests decide whether the folder is kept. */
	files: ReturnType<typeof keepFilesOnFailure>;
	sandbox?: SandboxOptions;
	/** The file's workflows, made at the first start with the sandbox credential. */
	workflows?: (sandbox: Sandbox) => Workflow[];
	/** Credentials the workflows name besides the sandbox's, made before them. */
	credentials?: (e2e: E2e) => Promise<CredentialImport[]>;
	/** False: the file calls `e2e.start()` itself (the credentials and workflows are made then). */
	start?: boolean;
	/** The n8n version (default: ERP_N8N_VERSION or N8N_VERSION, see scripts/n8n-env.ts). */
	version?: string;
	/** n8n settings over the defaults (scripts/n8n-instance.ts), e.g. feature flags. */
	extraEnv?: Record<string, string>;
	/**
	 * Use the run's shared n8n (test/e2e/shared-n8n.ts) rather than one of the file's own: for a
	 * file that never stops, restarts or reconfigures n8n (no `version`, `extraEnv`, nor
	 * `start: false`), whose workflow ids and webhook paths no other sharing file uses.
	 */
	shared?: boolean;
};

/**
 * For an e2e file's beforeAll: n8n installed with the packed package in a new user folder
 * (`prepareInstance`), the sandbox on a free port; n8n started unless `start` is false, and at
 * its first start the file's credentials and workflows made. `e2e.stop()` in afterAll undoes it
 * all. With `shared`, the run's n8n.
 */
export async function startE2e(options: E2eOptions): Promise<E2e> {
	if (options.shared) {
		const { version, extraEnv, start } = options;
		if (version || extraEnv || start === false)
			throw new Error('a file that sets up its n8n (version, extraEnv, start) owns it');
		const shared = await sharedN8n(options.log);
		if (shared) return await joinShared(shared, options);
	}
	const { log, files } = options;
	const version = options.version ?? n8nVersion();
	const { env, userFolder, paths } = await prepareInstance(options.folderPrefix, log, version);
	const sandbox = await startSandbox({ port: 0, ...options.sandbox });
	const config: N8nConfig = {
		env,
		paths,
		port: await freePort(),
		brokerPort: await freePort(),
		extraEnv: options.extraEnv,
	};
	const maker = new Maker(config, version, log);
	let made = false;
	const e2e: E2e = {
		userFolder,
		config,
		sandbox,
		rest: new N8nRest(`http://127.0.0.1:${config.port}`),
		async start() {
			log('starting n8n');
			e2e.n8n = await startN8n(config);
			e2e.rest = new N8nRest(e2e.n8n.url);
			const signedIn = await e2e.rest.signInAsOwner();
			if (!made) {
				made = true;
				await maker.make(e2e, options);
			}
			return signedIn;
		},
		setCredential: async (credential) => await maker.setCredential(e2e.rest, credential),
		async stop(logFile = 'n8n') {
			await e2e.n8n?.stop();
			await sandbox.close();
			files.cleanUp(userFolder, logFile === 'n8n' ? paths.n8nLog : paths.setupLog);
		},
	};
	try {
		if (options.start !== false) await e2e.start();
	} catch (error) {
		await e2e.n8n?.stop();
		await sandbox.close();
		log(`setting up failed; n8n's data and logs are kept in ${userFolder}`);
		throw error;
	}
	return e2e;
}

/**
 * Makes a file's credentials and workflows in a running n8n, through its REST API as the editor
 * does: no n8n CLI process (each `n8n import:*` starts n8n once more: about 10 s of CPU). n8n
 * gives a credential made so an id of its own: the workflows' references are moved to it. n8n
 * 1.x's REST API drops a new workflow's id, which the tests name: there, the CLI's import.
 */
class Maker {
	/** A credential's id as the workflows name it → its id in n8n. */
	private readonly ids = new Map<string, string>();

	constructor(
		private readonly config: N8nConfig,
		private readonly version: string,
		private readonly log: Log,
	) {}

	async make(e2e: E2e, options: Pick<E2eOptions, 'workflows' | 'credentials'>): Promise<void> {
		if (!options.workflows && !options.credentials) return;
		const credentials = [
			demoCredential(e2e.sandbox.baseUrl),
			...((await options.credentials?.(e2e)) ?? []),
		];
		for (const credential of credentials) await this.setCredential(e2e.rest, credential);
		const workflows = options.workflows?.(e2e.sandbox) ?? [];
		if (n8nMajor(this.version) < 2) {
			await importWorkflowFiles(this.config, workflows, this.log);
			return;
		}
		for (const workflow of workflows) {
			await e2e.rest.request('POST', '/rest/workflows', {
				...withCredentials(workflow, this.ids),
				active: false,
			});
		}
		this.log(`${credentials.length} credential(s), ${workflows.length} workflow(s) made in n8n`);
	}

	async setCredential(rest: N8nRest, credential: CredentialImport): Promise<void> {
		if (n8nMajor(this.version) < 2) {
			await importCredentials(this.config, [credential], this.log);
			return;
		}
		const { name, type, data } = credential;
		const id = this.ids.get(credential.id);
		if (id) {
			await rest.request('PATCH', `/rest/credentials/${id}`, { name, type, data });
			return;
		}
		const made = await rest.request<{ id: string }>('POST', '/rest/credentials', {
			name,
			type,
			data,
		});
		this.ids.set(credential.id, made.id);
	}
}

/**
 * A file's part of the run's shared n8n: its own sandbox, its credentials and workflows made
 * through the REST API; `stop()` unpublishes its workflows and closes its sandbox.
 */
async function joinShared(shared: SharedN8n, options: E2eOptions): Promise<E2e> {
	const { log, files } = options;
	const sandbox = await startSandbox({ port: 0, ...options.sandbox });
	// The run's session: n8n allows 5 sign-ins a minute per user, and many files share it.
	const rest = shareSession(new N8nRest(shared.url, shared.session));
	const maker = new Maker(shared.config, n8nVersion(), log);
	const e2e: E2e = {
		userFolder: shared.config.paths.userFolder,
		config: shared.config,
		sandbox,
		rest,
		n8n: {
			url: shared.url,
			pid: 0,
			exited: new Promise<void>(() => {}),
			stop: async () => {
				throw new Error("a file never stops the run's shared n8n: one that must, owns its n8n");
			},
		},
		async start() {
			return 'signed-in' as const;
		},
		setCredential: async (credential) => await maker.setCredential(rest, credential),
		async stop() {
			for (const workflow of options.workflows?.(sandbox) ?? [])
				await rest.deactivate(workflow.id).catch(() => undefined);
			await sandbox.close();
			if (files.anyFailed()) keepSharedN8n();
		},
	};
	try {
		await e2e.start();
		await maker.make(e2e, options);
	} catch (error) {
		await sandbox.close();
		keepSharedN8n();
		throw error;
	}
	return e2e;
}

/** `workflow` with its credential references moved to n8n's ids (`ids`: given id → n8n's). */
export function withCredentials(workflow: Workflow, ids: Map<string, string>): Workflow {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			const credentials = node.credentials as Record<string, { id: string }> | undefined;
			if (!credentials) return node;
			return {
				...node,
				credentials: Object.fromEntries(
					Object.entries(credentials).map(([type, ref]) => [
						type,
						ids.has(ref.id) ? { ...ref, id: ids.get(ref.id)! } : ref,
					]),
				),
			};
		}),
	};
}

/**
 * An example as one file's own on the run's shared n8n: `workflow` under the id `id`, its Webhook
 * nodes on paths of their own (`<id>-<path>`), where several files publish the same example.
 */
export function ownCopy(workflow: Workflow, id: string): Workflow {
	return {
		...workflow,
		id,
		nodes: workflow.nodes.map((node) =>
			node.type === 'n8n-nodes-base.webhook'
				? {
						...node,
						webhookId: randomUUID(),
						parameters: { ...node.parameters, path: `${id}-${String(node.parameters.path)}` },
					}
				: node,
		),
	};
}

/** startE2e with one workflow (an example, as `npm start` imports it), published once n8n runs. */
export async function startPublished(
	workflow: Workflow,
	options: {
		folderPrefix: string;
		log: Log;
		files: ReturnType<typeof keepFilesOnFailure>;
		shared?: boolean;
	},
): Promise<E2e> {
	const e2e = await startE2e({ ...options, workflows: () => [workflow] });
	await e2e.rest.activate(workflow.id);
	return e2e;
}

type NodeSpec = {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	[key: string]: unknown;
};

/**
 * A workflow of `nodes` in a row, each one's main output into the next (ids `<id>-1`, `<id>-2`,
 * ...; type version 1 unless a node says otherwise).
 */
export function chainWorkflow(id: string, name: string, nodes: NodeSpec[]): Workflow {
	const connections: Record<string, unknown> = {};
	nodes.slice(1).forEach((node, i) => {
		connections[nodes[i].name] = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
	});
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node, i) => ({
			id: `${id}-${i + 1}`,
			typeVersion: 1,
			position: [220 * i, 0],
			...node,
		})),
		connections,
	};
}

/** Manual Trigger, then `node`: a workflow to run with `n8n execute`. */
export function manualWorkflow(id: string, name: string, node: NodeSpec): Workflow {
	return chainWorkflow(id, name, [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
		node,
	]);
}

/** Manual Trigger, then ERP › Article › Get Many (`parameters`: 3 unless told) with an API key credential. */
export function articlesWorkflow(
	id: string,
	credential: { id: string; name: string },
	parameters: Record<string, unknown> = { returnAll: false, limit: 3 },
): Workflow {
	return manualWorkflow(id, `E2E: list articles through ${credential.name}`, {
		name: 'ERP',
		type: 'n8n-nodes-erp.erp',
		credentials: { erpApi: credential },
		parameters: { resource: 'article', operation: 'getAll', ...parameters },
	});
}

/** Webhook `path` (GET; answers with every item), then ERP › Article › Get Many with Return All. */
export function listAllWorkflow(
	id: string,
	name: string,
	options: { webhookId: string; path: string; credential: { id: string; name: string } },
): Workflow {
	return chainWorkflow(id, name, [
		{
			name: 'Request',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			webhookId: options.webhookId,
			parameters: {
				httpMethod: 'GET',
				path: options.path,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
		},
		{
			name: 'List articles',
			type: 'n8n-nodes-erp.erp',
			credentials: { erpApi: options.credential },
			parameters: { resource: 'article', operation: 'getAll', returnAll: true },
		},
	]);
}
