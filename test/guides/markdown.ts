/**
 * The commands of a guide under docs/ and the answers it says you will see, read from its
 * fenced blocks (test/guides/guides.test.ts runs them):
 * - ```sh             a command run to its end; the ```json block right after it is its answer;
 * - ```sh server=NAME a command that keeps running (a sandbox, a listener): started in the
 *                     background, replacing the one of the same name;
 * - ```json output=NAME what server NAME printed, one JSON value per line;
 * - ```sh your-values a command the reader adapts (not run).
 * Blocks in other languages (```ts, ```bash...) are not read: a guide's commands are ```sh.
 * Answers are shortened: an object gives only the keys that matter, `…` in a text stands for
 * any text, and a list whose last element is "…" may have more elements.
 */

export type Step =
	| { kind: 'run'; command: string; answer?: string; line: number }
	| { kind: 'server'; name: string; command: string; line: number }
	| { kind: 'output'; name: string; expected: string; line: number };

/** The guide's steps, in page order. */
export function stepsOf(markdown: string): Step[] {
	const steps: Step[] = [];
	const lines = markdown.split('\n');
	for (let i = 0; i < lines.length; i++) {
		const open = /^\s*```(\w+)\s*(.*)$/.exec(lines[i]);
		if (!open) continue;
		const start = i;
		const indent = /^\s*/.exec(lines[i])?.[0].length ?? 0;
		const body: string[] = [];
		while (++i < lines.length && !/^\s*```\s*$/.test(lines[i])) body.push(lines[i].slice(indent));
		const [language, info] = [open[1], open[2].trim()];
		const text = body.join('\n').trim();
		const named = /^(server|output)=(\S+)$/.exec(info);
		const line = start + 1;
		if (language === 'sh' && info === 'your-values') continue;
		if (language === 'sh' && named?.[1] === 'server')
			steps.push({ kind: 'server', name: named[2], command: text, line });
		else if (language === 'sh' && info === '') steps.push({ kind: 'run', command: text, line });
		else if (language === 'json' && named?.[1] === 'output')
			steps.push({ kind: 'output', name: named[2], expected: text, line });
		else if (language === 'json' && info === '') {
			const previous = steps[steps.length - 1];
			if (previous?.kind !== 'run' || previous.answer !== undefined)
				throw new Error(`line ${line}: a json answer without its command right before it`);
			previous.answer = text;
		} else if (language === 'sh' || language === 'json')
			throw new Error(`line ${line}: unknown block \`\`\`${language} ${info}`);
	}
	return steps;
}

/** Where `actual` differs from the shortened `expected` (see above); undefined when it matches. */
export function mismatch(expected: unknown, actual: unknown, at = '$'): string | undefined {
	if (typeof expected === 'string' && expected.includes('…')) {
		const pattern = expected
			.split('…')
			.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
			.join('[\\s\\S]*');
		return typeof actual === 'string' && new RegExp(`^${pattern}$`).test(actual)
			? undefined
			: `${at}: expected text like ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
	}
	if (Array.isArray(expected)) {
		if (!Array.isArray(actual)) return `${at}: expected a list, got ${JSON.stringify(actual)}`;
		const open = expected[expected.length - 1] === '…';
		const items = open ? expected.slice(0, -1) : expected;
		if (open ? actual.length <= items.length : actual.length !== items.length)
			return `${at}: expected ${open ? 'more than' : 'exactly'} ${items.length} elements, got ${actual.length}`;
		for (let i = 0; i < items.length; i++) {
			const problem = mismatch(items[i], actual[i], `${at}[${i}]`);
			if (problem) return problem;
		}
		return undefined;
	}
	if (expected !== null && typeof expected === 'object') {
		if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
			return `${at}: expected an object, got ${JSON.stringify(actual)}`;
		for (const [key, value] of Object.entries(expected)) {
			if (!(key in actual)) return `${at}.${key}: missing`;
			const problem = mismatch(value, (actual as Record<string, unknown>)[key], `${at}.${key}`);
			if (problem) return problem;
		}
		return undefined;
	}
	return expected === actual
		? undefined
		: `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** The JSON values of a text, one per non-empty line. */
export function jsonLines(text: string): unknown[] {
	return text
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => JSON.parse(line) as unknown);
}
