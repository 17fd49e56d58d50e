// Idempotency-Key on POST: the first answer per credential + key is kept 24 h and replayed.
import { createHash } from 'node:crypto';
import { ApiError, type Reply } from './http';

const TTL_MS = 24 * 3600 * 1000;

interface Saved {
	fingerprint: string;
	status: number;
	/** JSON snapshot: later changes to the resource do not alter the replay. */
	body: string;
	at: number;
}

export class IdempotencyStore {
	private saved = new Map<string, Saved>();

	reset(): void {
		this.saved.clear();
	}

	static fingerprint(method: string, path: string, rawBody: string): string {
		return createHash('sha256').update(`${method} ${path}\n${rawBody}`).digest('hex');
	}

	/** The replay for this key, a 422 when the key was used with another request, or undefined. */
	lookup(scope: string, key: string, fingerprint: string, nowMs: number): Reply | undefined {
		const id = `${scope}\n${key}`;
		const s = this.saved.get(id);
		if (!s) return undefined;
		if (nowMs - s.at > TTL_MS) {
			this.saved.delete(id);
			return undefined;
		}
		if (s.fingerprint !== fingerprint) {
			throw new ApiError(
				422,
				'idempotency_key_reused',
				'This Idempotency-Key was already used with a different request',
				[{ field: 'Idempotency-Key', message: 'Use a new key for a different request' }],
			);
		}
		return {
			status: s.status,
			body: JSON.parse(s.body),
			headers: { 'Idempotent-Replayed': 'true' },
		};
	}

	/** Keeps 2xx answers and the handler's 4xx answers (never 401/403/429 or 5xx). */
	save(scope: string, key: string, fingerprint: string, reply: Reply, nowMs: number): void {
		if (reply.status >= 500 || [401, 403, 429].includes(reply.status)) return;
		this.saved.set(`${scope}\n${key}`, {
			fingerprint,
			status: reply.status,
			body: JSON.stringify(reply.body ?? null),
			at: nowMs,
		});
	}
}
