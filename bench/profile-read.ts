/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
// Profiling aid for P1/P4: reads every article with one contender against a sandbox in its own
// process (so the profile holds only the client), after one unprofiled warm-up read, and writes a
// V8 CPU profile of the measured reads (open it in Chrome DevTools or VS Code).
//
//   npx tsx bench/profile-read.ts [node|bare|bare-fresh] [articles=20000] [reads=5] [out=bench/results/read.cpuprofile]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';

import { UNPACED } from '../sandbox';
import { readers } from './contenders';
import { startBenchSandbox } from './sandbox';

function post<T>(session: Session, method: string): Promise<T> {
	return new Promise((resolve, reject) =>
		session.post(method, (error, result) => (error ? reject(error) : resolve(result as T))),
	);
}

async function main(): Promise<void> {
	const [
		contender = 'node',
		articles = '20000',
		reads = '5',
		out = 'bench/results/read.cpuprofile',
	] = process.argv.slice(2);
	const read = readers[contender];
	if (!read)
		throw new Error(
			`unknown contender ${contender}; choose from ${Object.keys(readers).join(', ')}`,
		);
	const sandbox = await startBenchSandbox({ articles: Number(articles), rateLimit: UNPACED });
	const session = new Session();
	session.connect();
	try {
		await read(sandbox.baseUrl);
		await post(session, 'Profiler.enable');
		await post(session, 'Profiler.start');
		for (let i = 0; i < Number(reads); i++) {
			const start = performance.now();
			const { items } = await read(sandbox.baseUrl);
			process.stdout.write(
				`${contender} ${items.length} articles: ${(performance.now() - start).toFixed(0)} ms\n`,
			);
		}
		const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
		writeFileSync(out, JSON.stringify(profile));
		process.stdout.write(`profile: ${out}\n`);
	} finally {
		session.disconnect();
		await sandbox.close();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
	process.exit(1);
});
