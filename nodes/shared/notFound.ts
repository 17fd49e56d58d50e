/** One rule for "the record is gone": undefined when the API answered 404; other errors go on. */
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
