// Deliveries signed by the `standardwebhooks` package (the scheme's reference implementation),
// without Jest: for the trigger tests (through ./helpers.ts), the e2e files and the benchmarks.
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface SignedDelivery {
	headers: Record<string, string>;
	body: string;
}

/** An event body and Standard Webhooks headers signed by the reference library. */
export function signedDelivery(
	secret: string,
	options: {
		id?: string;
		type?: string;
		data?: IDataObject;
		timestamp?: number;
		body?: string;
	} = {},
): SignedDelivery {
	const id = options.id ?? `evt_${randomBytes(12).toString('hex')}`;
	const timestamp = options.timestamp ?? nowSeconds();
	const body =
		options.body ??
		JSON.stringify({
			id,
			type: options.type ?? 'vente.creee',
			created_at: new Date(timestamp * 1000).toISOString(),
			// Each event its own invoice: one invoice is one vente.creee (its identity, ranEvents.ts).
			data: options.data ?? { id: `fac_${id}`, total_ttc: 1200 },
		});
	return {
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': new Webhook(secret).sign(id, new Date(timestamp * 1000), body),
		},
		body,
	};
}
