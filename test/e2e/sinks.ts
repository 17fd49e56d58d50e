/**
 * What the polling e2e files share: an example workflow by id, and a chat sink's messages as a
 * reading for expectCount (test/e2e/count.ts).
 */
import { loadExamples, type ChatSink, type Workflow } from '../../scripts/examples';
import type { Reading } from './count';

/** The example workflow with this id (examples/*.json). */
export function example(id: string): Workflow {
	const found = loadExamples().find(({ workflow }) => workflow.id === id);
	if (!found) throw new Error(`No example workflow with id ${id}`);
	return found.workflow;
}

/** The messages a sink received, for expectCount. */
export const sinkReading = (sink: ChatSink) => async (): Promise<Reading<string[]>> => ({
	count: sink.messages.length,
	detail: sink.messages,
});
