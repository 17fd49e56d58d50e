import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

/** A delivery answered without a run: the status, a small JSON body, a Retry-After (seconds). */
export interface Refusal {
	status: number;
	body: IDataObject;
	retryAfter?: number;
}

/** Answers the request with a status and a small JSON body, and starts no execution. */
export function answer(context: IWebhookFunctions, refusal: Refusal): IWebhookResponseData {
	const res = context.getResponseObject();
	if (refusal.retryAfter !== undefined) res.setHeader('Retry-After', String(refusal.retryAfter));
	res.status(refusal.status).json(refusal.body);
	return { noWebhookResponse: true };
}
