/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// Loads a module of the product as it ships: compiled by TypeScript with the project's
// tsconfig.json (what `n8n-node build` emits), not transformed by tsx, whose esbuild output wraps
// every closure in a `__name()` call (keepNames) and so slows down tight loops that n8n never runs.
// For micro-benchmarks of pure files (imports limited to Node built-ins).
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

import ts from 'typescript';

const REPO = path.join(__dirname, '..');

function compilerOptions(): ts.CompilerOptions {
	const file = path.join(REPO, 'tsconfig.json');
	const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
	if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
	return ts.parseJsonConfigFileContent(config, ts.sys, REPO).options;
}

/** `relativePath` from the repository root, e.g. 'nodes/ErpTrigger/signature.ts'. */
export function loadAsShipped<T>(relativePath: string): T {
	const file = path.join(REPO, relativePath);
	const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
		compilerOptions: { ...compilerOptions(), sourceMap: false, declaration: false },
		fileName: file,
	});
	const compiled = new Module(file) as Module & { _compile(code: string, filename: string): void };
	compiled.filename = file;
	compiled.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
	compiled._compile(outputText, file);
	return compiled.exports as T;
}
