// Request counters for GET /_sandbox/stats, and the request log of GET /_sandbox/requests.

/** One answered request to /v1 or /oauth: its query string's parameters and the status. */
export interface LoggedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	status: number;
}

/** Requests the log keeps (the latest). */
const LOG_MAX = 1000;

export class Stats {
	requests = 0;
	byStatus: Record<string, number> = {};
	byPath: Record<string, number> = {};
	faults: Record<string, number> = {};
	webhookDeliveries = { attempts: 0, succeeded: 0, failed: 0 };
	log: LoggedRequest[] = [];

	reset(): void {
		this.log = [];
		this.requests = 0;
		this.byStatus = {};
		this.byPath = {};
		this.faults = {};
		this.webhookDeliveries = { attempts: 0, succeeded: 0, failed: 0 };
	}

	/** `GET /v1/articles/art_00000001` -> `GET /v1/articles/:id` */
	static pathKey(method: string, path: string): string {
		const norm = path
			.split('/')
			.map((s) => (/^[a-z]{3}_[A-Za-z0-9_-]+$/.test(s) ? ':id' : s))
			.join('/')
			.replace(/(.)\/$/, '$1');
		return `${method} ${norm}`;
	}

	countRequest(method: string, path: string): void {
		this.requests++;
		const key = Stats.pathKey(method, path);
		this.byPath[key] = (this.byPath[key] ?? 0) + 1;
	}

	countStatus(status: number): void {
		this.byStatus[String(status)] = (this.byStatus[String(status)] ?? 0) + 1;
	}

	logRequest(method: string, path: string, query: Record<string, string>, status: number): void {
		this.log.push({ method, path, query, status });
		if (this.log.length > LOG_MAX) this.log.shift();
	}

	countFault(kind: string): void {
		this.faults[kind] = (this.faults[kind] ?? 0) + 1;
	}
}
