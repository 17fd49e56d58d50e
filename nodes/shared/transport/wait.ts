// The one function every rate-limit wait goes through (a slot of the budget, a 429 without a
// time): `sleep` from n8n-workflow, ended early when the execution is cancelled.
import { sleep } from 'n8n-workflow';

export async function waitForRateLimit(ms: number, signal?: AbortSignal): Promise<void> {
	await sleep(Math.max(0, Math.round(ms)), signal);
}
