/** One rule for "the record is gone": undefined when the API answered 404; other errors go on. */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
	return await request.catch((error: unknown) => {
		const httpCode = (error as { httpCode?: unknown } | null)?.httpCode;
		if (httpCode === '404' || httpCode === 404) return undefined;
		throw error;
	});
}
