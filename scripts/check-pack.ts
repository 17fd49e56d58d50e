/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- a dev script that runs npm, not a node */
/**
 * `npm run check:pack`: what `npm publish` would ship, checked after `npm run build`.
 * 1. `npm pack --dry-run --json` lists exactly the allowed files: nothing outside the
 *    allow-list (build leftovers such as `dist/tsconfig.tsbuildinfo`, declarations, source
 *    maps, tests), and nothing required missing.
 * 2. n8n-core's own package loader loads those files alone (copied to a temporary folder
 *    inside the repository, so that `n8n-workflow` resolves), as n8n does: both nodes have a
 *    codex (n8n-core logs `No codex available for: <node>` otherwise) with categories, and
 *    every documentation link (codex resources, credential `documentationUrl`) points at the
 *    repository's README and at a heading that exists there.
 * Exits non-zero on any failure, listing every problem found.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';

const ROOT = path.resolve(__dirname, '..');
const say = (line: string) => process.stdout.write(`${line}\n`);
const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	homepage: string;
	n8n: { nodes: string[]; credentials: string[] };
};

/** Every file the tarball may hold. */
const ALLOWED = [
	/^package\.json$/,
	/^README\.md$/,
	/^LICENSE$/,
	/^dist\/credentials\/[A-Za-z0-9]+\.credentials\.js$/,
	/^dist\/nodes\/[A-Za-z0-9]+\/[A-Za-z0-9]+\.node\.json$/,
	/^dist\/nodes\/([A-Za-z0-9]+\/)+[A-Za-z0-9.]+\.js$/,
	/^dist\/icons\/[a-z0-9.]+\.svg$/,
];

/** Every file the tarball must hold. */
const REQUIRED = [
	'package.json',
	'README.md',
	'LICENSE',
	'dist/nodes/Erp/Erp.node.js',
	'dist/nodes/Erp/Erp.node.json',
	'dist/nodes/ErpTrigger/ErpTrigger.node.js',
	'dist/nodes/ErpTrigger/ErpTrigger.node.json',
	'dist/nodes/ErpPollingTrigger/ErpPollingTrigger.node.js',
	'dist/nodes/ErpPollingTrigger/ErpPollingTrigger.node.json',
	'dist/credentials/ErpApi.credentials.js',
	'dist/credentials/ErpOAuth2Api.credentials.js',
	'dist/icons/erp.svg',
	'dist/icons/erp.dark.svg',
	...packageJson.n8n.nodes,
	...packageJson.n8n.credentials,
];

function packedFiles(): string[] {
	const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(`npm pack --dry-run failed:\n${result.stderr}`);
	const [pack] = JSON.parse(result.stdout) as Array<{ files: Array<{ path: string }> }>;
	return pack.files.map((file) => file.path).sort();
}

function checkContents(files: string[]): string[] {
	const problems = files
		.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)))
		.map((file) => `not allowed in the package: ${file}`);
	for (const file of new Set(REQUIRED)) {
		if (!files.includes(file)) problems.push(`missing from the package: ${file}`);
	}
	return problems;
}

/** GitHub's anchors for the README's headings (fenced code skipped). */
function readmeAnchors(): Set<string> {
	const anchors = new Set<string>();
	let inFence = false;
	for (const line of fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n')) {
		if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
		const heading = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (heading) {
			anchors.add(
				heading[1]
					.toLowerCase()
					.replace(/[^\p{L}\p{N}\s_-]/gu, '')
					.replace(/\s/g, '-'),
			);
		}
	}
	return anchors;
}

/** A documentation link must be `<repository homepage>#<existing README heading>`. */
function checkLink(where: string, url: unknown, anchors: Set<string>): string[] {
	const base = packageJson.homepage.replace(/#.*$/, '');
	if (typeof url !== 'string' || !url.startsWith(`${base}#`)) {
		return [`${where}: ${String(url)} is not a link into ${base}'s README`];
	}
	const anchor = url.slice(base.length + 1);
	return anchors.has(anchor) ? [] : [`${where}: the README has no heading for #${anchor}`];
}

/** Loads the built package with n8n-core's loader, recording what it logs. */
async function checkCodex(packageDir: string): Promise<string[]> {
	const coreRequire = createRequire(require.resolve('n8n-core'));
	const { Container } = coreRequire('@n8n/di') as typeof import('@n8n/di');
	const { Logger } = coreRequire('@n8n/backend-common') as { Logger: abstract new () => object };
	const logged: string[] = [];
	const logger = {
		error: (message: string) => logged.push(message),
		warn: (message: string) => logged.push(message),
		info: (message: string) => logged.push(message),
		debug: (message: string) => logged.push(message),
		scoped: () => logger,
	};
	Container.set(Logger, logger);

	const loader = new PackageDirectoryLoader(packageDir);
	await loader.loadAll();
	const anchors = readmeAnchors();
	const problems = logged
		.filter((line) => /No codex|error|fail/i.test(line))
		.map((line) => `n8n-core logged: ${line}`);

	const nodes = Object.values(loader.nodeTypes);
	if (nodes.length !== packageJson.n8n.nodes.length) {
		problems.push(
			`n8n-core loaded ${nodes.length} nodes, package.json lists ${packageJson.n8n.nodes.length}`,
		);
	}
	for (const { type } of nodes) {
		const { name, codex } = type.description;
		if (!codex?.categories?.length) problems.push(`${name}: the codex has no categories`);
		const resources = codex?.resources ?? {};
		const links = [
			...(resources.primaryDocumentation ?? []),
			...(resources.credentialDocumentation ?? []),
		];
		if (!resources.primaryDocumentation?.length) problems.push(`${name}: no primary documentation`);
		for (const { url } of links) problems.push(...checkLink(`${name} codex`, url, anchors));
	}
	for (const { type } of Object.values(loader.credentialTypes)) {
		problems.push(...checkLink(`${type.name} credential`, type.documentationUrl, anchors));
	}
	say(
		`== n8n-core loaded ${nodes.length} nodes and ${Object.keys(loader.credentialTypes).length} credentials; ` +
			`codex: ${nodes.map(({ type }) => `${type.description.name} [${type.description.codex?.categories?.join(', ')}]`).join(', ')}`,
	);
	return problems;
}

async function main(): Promise<number> {
	const files = packedFiles();
	say(`== npm pack --dry-run: ${files.length} files`);
	const cache = path.join(ROOT, '.cache');
	fs.mkdirSync(cache, { recursive: true });
	const packageDir = fs.mkdtempSync(path.join(cache, 'check-pack-'));
	let problems: string[];
	try {
		for (const file of files) {
			fs.mkdirSync(path.dirname(path.join(packageDir, file)), { recursive: true });
			fs.copyFileSync(path.join(ROOT, file), path.join(packageDir, file));
		}
		problems = [...checkContents(files), ...(await checkCodex(packageDir))];
	} finally {
		fs.rmSync(packageDir, { recursive: true, force: true });
	}
	for (const problem of problems) say(`   ${problem}`);
	say(
		problems.length === 0
			? 'package contents: OK'
			: `package contents: ${problems.length} problems`,
	);
	return problems.length === 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`${String(error instanceof Error ? (error.stack ?? error) : error)}\n`);
		process.exit(1);
	},
);
