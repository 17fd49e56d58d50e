// The one way the transport waits: `sleep` from n8n-workflow, ended early when the execution is
// cancelled. n8n's `sleep(ms, signal)` honours the signal only from n8n 2.34 (before, the signal
// is ignored and a cancelled execution sat out the whole wait), so the wait is slept in short
// slices and the signal is checked between them: a cancellation ends it within one slice.
import { sleep } from 'n8n-workflow';

/** The longest a cancellation can go unnoticed where n8n's `sleep` ignores the signal. */
export const WAIT_SLICE_MS = 200;

/**
 * Waits `ms` milliseconds; when `signal` aborts first, rejects with its reason (as n8n's own
 * `sleep` does from 2.34).
 */
export async function wait(ms: number, signal?: AbortSignal): Promise<void> {
	const end = Date.now() + ms;
	for (;;) {
		signal?.throwIfAborted();
		const left = end - Date.now();
		if (left <= 0) return;
		await sleep(Math.min(left, WAIT_SLICE_MS), signal);
	}
}
