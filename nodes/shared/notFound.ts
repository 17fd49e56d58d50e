// One rule for "the record is gone": a transport request whose 404 means "nothing there".

/**
 * Runs a transport request and gives undefined when the API answered 404 (the transport's
 * NodeApiError carries `httpCode: '404'`). Any other error goes through unchanged.
 */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
	const outcome = await request.then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (outcome.ok) return outcome.value;
	const httpCode = (outcome.error as { httpCode?: unknown } | null)?.httpCode;
	if (httpCode === '404' || httpCode === 404) return undefined;
	throw outcome.error;
}
