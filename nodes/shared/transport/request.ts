// The attempt loop: one request to the ERP API, with its slot of the rate-limit budget, its turns
// after a 429 (rateLimited.ts), retries (rateLimit.ts decideRetry) and its final error (failure.ts).
// One attempt is attempt.ts; what every attempt sends is httpOptions.ts.
import type { IExecuteFunctions } from 'n8n-workflow';

import { DEFAULT_MAX_WAIT_SECONDS } from '../descriptions';
import { attemptOnce } from './attempt';
import { currentSecrets, resolveCredential } from './credentials';
import type { ResolvedCredential } from './credentials';
import type { ErpErrorContext } from './errors';
import { failureError } from './failure';
import type { StopReason } from './failure';
import { httpOptions, requestPath } from './httpOptions';
import { gateSeconds, takeSlot } from './pacing';
import { onRateLimited } from './rateLimited';
import { decideRetry } from './rateLimit';
import type { ErpContext, ErpRequest, ErpRequestSettings } from './types';
import { wait } from './wait';

/**
 * Sends one request to the ERP API and returns the parsed JSON body (`{}` for an empty answer).
 * Throws NodeOperationError when a guard refuses the credential (nothing is sent), NodeApiError
 * for anything the API or the network answered, after the retries the method allows.
 */
export async function erpApiRequest(
	this: ErpContext,
	request: ErpRequest,
	settings: ErpRequestSettings = {},
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
	return (await send(this, await resolveCredential(this, request.itemIndex), request, settings))
		.body;
}

/** erpApiRequest, with the answer's status code (e.g. to tell a 204 from a 200 with `{}`). */
export async function erpApiResponse(
	this: ErpContext,
	request: ErpRequest,
	settings: ErpRequestSettings = {},
): Promise<{ statusCode: number; body: unknown }> {
	return await send(this, await resolveCredential(this, request.itemIndex), request, settings);
}

export async function send(
	context: ErpContext,
	resolved: ResolvedCredential,
	request: ErpRequest,
	settings: ErpRequestSettings,
): Promise<{ statusCode: number; body: unknown }> {
	const { method, itemIndex, resendable } = request;
	const maxWaitSeconds = settings.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
	const options = httpOptions(context, resolved, request, settings);
	// Waits end early when the execution is cancelled (the signal exists in execute contexts).
	const signal = (context as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	const startedAtMs = Date.now();

	let first = false;
	let retry = 0;
	// n8n 1.x ignores `except: [401]` and hands an expired token's 401 back as an answer: that
	// attempt is sent again once with status errors thrown, so that n8n refreshes the token.
	let refresh: 'not yet' | 'now' | 'done' = 'not yet';
	for (let attempts = 1; ; attempts++) {
		// A slot of the key's budget, in order (a retry or a turn goes first). A wait past what is
		// left of Max Rate-Limit Wait is not made: the request goes, and the server's 429 says how long.
		const leftMs = startedAtMs + maxWaitSeconds * 1000 - Date.now();
		const slot = await takeSlot(resolved.paceKey, {
			maxWaitMs: Math.max(0, leftMs),
			signal,
			first,
			ratePerMinute: resolved.ratePerMinute,
		});
		const sent = refresh === 'now' ? { ...options, ignoreHttpStatusErrors: false } : options;
		if (refresh === 'now') refresh = 'done';
		const result = await attemptOnce(context, resolved, sent, slot, itemIndex);
		if (result.done) return { statusCode: result.statusCode, body: result.body };
		first = true;
		if (
			refresh === 'not yet' &&
			resolved.authentication === 'oAuth2' &&
			result.outcome.kind === 'status' &&
			result.outcome.status === 401
		) {
			refresh = 'now';
			continue;
		}

		let stop: StopReason;
		const step = onRateLimited(
			result.outcome,
			startedAtMs,
			maxWaitSeconds,
			result.atMs,
			gateSeconds(slot, result.atMs),
		);
		if (step?.action === 'turn') continue;
		if (step !== undefined) {
			stop = step;
		} else {
			const decision = decideRetry(
				result.outcome,
				method,
				retry,
				maxWaitSeconds,
				Math.random,
				resendable,
			);
			if (decision.action === 'retry') {
				retry++;
				// A back-off: the transport's one wait (wait.ts).
				await wait(decision.waitSeconds * 1000, signal);
				continue;
			}
			stop = decision;
		}
		const errorContext: ErpErrorContext = {
			method,
			path: requestPath(request),
			body: request.body,
			resource: request.resource,
			itemIndex,
			authentication: resolved.authentication,
			resendable,
			secrets: await currentSecrets(context, resolved),
		};
		throw failureError(resolved, result, stop, attempts, maxWaitSeconds, errorContext);
	}
}
