/**
 * The "Workflows" lines of `npm start`'s ready banner, made from the examples themselves, so
 * that every imported workflow is named (test/sandbox/demo.test.ts) and none is forgotten when
 * one is added.
 */
import { EXAMPLE_IDS, type Workflow } from './examples';

/** The examples `npm start` publishes on its first start. */
export const PUBLISHED_EXAMPLES = [
	EXAMPLE_IDS.orderToInvoice,
	EXAMPLE_IDS.lowStockToChat,
	EXAMPLE_IDS.mcpServer,
];

/** What to do with an example `npm start` leaves unpublished. */
const NOT_PUBLISHED_HINTS: Record<string, string> = {
	[EXAMPLE_IDS.lowStockByPolling]:
		'the same alert by polling: publish it instead of the webhook one',
	[EXAMPLE_IDS.aiAgent]: 'set the Base URL and key of its OpenAI credential to try it',
};

/** The banner's lines naming every example workflow, published ones first. */
export function workflowLines(workflows: Workflow[]): string[] {
	const published = workflows.filter((w) => PUBLISHED_EXAMPLES.includes(w.id));
	const others = workflows.filter((w) => !PUBLISHED_EXAMPLES.includes(w.id));
	const label = (first: boolean) => (first ? '  Workflows   ' : '              ');
	return [
		...published.map((w, i) => `${label(i === 0)}"${w.name}" (published)`),
		...others.map((w) => {
			const hint = NOT_PUBLISHED_HINTS[w.id];
			return `${label(false)}"${w.name}" (not published${hint ? `; ${hint}` : ''})`;
		}),
	];
}
