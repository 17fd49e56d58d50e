import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

/** Answers the request with a status and a small JSON body, and starts no execution. */
export function answer(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	context.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}
