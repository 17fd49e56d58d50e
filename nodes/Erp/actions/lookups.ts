// Lookups several operations need: an article by its reference, a client by its email, and the
// find-or-create step built on them. All HTTP goes through the item's ItemErp.
import type { IDataObject } from 'n8n-workflow';

import type { ItemErp } from './erp';

/** The article whose reference is exactly `reference`, or undefined. */
export async function findArticleByReference(
	erp: ItemErp,
	reference: string,
): Promise<IDataObject | undefined> {
	for await (const page of erp.paginate('/articles', { reference }, { pageSize: 100 })) {
		const match = page.find((article) => article.reference === reference);
		if (match) return match;
	}
	return undefined;
}

/** The client whose email is `email` (compared without case), or undefined. */
export async function findClientByEmail(
	erp: ItemErp,
	email: string,
): Promise<IDataObject | undefined> {
	const wanted = email.toLowerCase();
	for await (const page of erp.paginate('/clients', { q: email }, { pageSize: 100 })) {
		const match = page.find((client) => String(client.email ?? '').toLowerCase() === wanted);
		if (match) return match;
	}
	return undefined;
}

/**
 * Find or create: the record `find` returns, marked `_action: 'found'` (or what `whenFound` makes
 * of it), else the one POSTed to `path` with `body`, marked `_action: 'created'`.
 */
export async function findOrCreate(
	erp: ItemErp,
	find: () => Promise<IDataObject | undefined>,
	path: string,
	body: IDataObject,
	whenFound: (found: IDataObject) => Promise<IDataObject> = async (found) => ({
		...found,
		_action: 'found',
	}),
): Promise<IDataObject> {
	const found = await find();
	if (found) return await whenFound(found);
	const created = await erp.request({ method: 'POST', path, body });
	return { ...created, _action: 'created' };
}
