// The attempt loop: one request to the ERP API, with its slot of the rate-limit budget, retries
// and error mapping.
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { DEFAULT_MAX_WAIT_SECONDS } from '../descriptions';
import { withTlsMinimum } from '../tls';
import {
	answerFromError,
	isNotConnected,
	isReconnectNeeded,
	isTlsVersionRefusal,
	isUnreadableBody,
	networkCodeFromError,
} from './classify';
import type { HttpAnswer } from './classify';
import { currentSecrets, resolveCredential } from './credentials';
import type { ResolvedCredential } from './credentials';
import {
	networkError,
	notConnectedError,
	reconnectError,
	tlsVersionError,
} from './connectionErrors';
import {
	badBodyError,
	dailyQuotaError,
	httpStatusError,
	mayHaveBeenApplied,
	waitCapError,
} from './errors';
import type { ErpErrorContext } from './errors';
import { errorChain } from './errorJson';
import { deriveIdempotencyKey, resolveIdempotencyKey } from './idempotency';
import { settle, takeSlot } from './pacing';
import { decideRetry, readRateLimitHeaders } from './rateLimit';
import type { AttemptOutcome, RateLimitInfo } from './rateLimit';
import type { ErpContext, ErpRequest, ErpRequestSettings } from './types';
import { wait } from './wait';

const DEFAULT_TIMEOUT_SECONDS = 30;

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
	const { node, authentication, credentialType, baseUrl, paceKey } = resolved;
	const { method, itemIndex, resendable } = request;
	const path = request.path.startsWith('/') ? request.path : `/${request.path}`;
	const maxWaitSeconds = settings.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
	const errorContext: ErpErrorContext = {
		method,
		path,
		body: request.body,
		resource: request.resource,
		itemIndex,
		authentication,
		resendable,
	};

	const headers: IDataObject = { Accept: 'application/json' };
	if (method === 'POST') {
		// Computed once: every attempt of this request carries the same key.
		const key = resolveIdempotencyKey(request.idempotencyKey, settings.idempotencyKey, () =>
			deriveIdempotencyKey({
				workflowId: String(context.getWorkflow().id ?? ''),
				nodeName: node.name,
				method,
				path,
				body: request.body ?? {},
			}),
		);
		if (key !== undefined) headers['Idempotency-Key'] = key;
	}

	// https: TLS 1.3 at least, as the API requires (../tls.ts).
	const options: IHttpRequestOptions = withTlsMinimum({
		method,
		url: `${baseUrl}${path}`,
		headers,
		qs: request.qs,
		json: true,
		returnFullResponse: true,
		timeout: (settings.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
		// OAuth2: let 401 throw so that n8n refreshes the access token and retries once.
		ignoreHttpStatusErrors: authentication === 'oAuth2' ? { ignore: true, except: [401] } : true,
	});
	if (request.body !== undefined && method !== 'GET') options.body = request.body;
	// Waits end early when the execution is cancelled (the signal exists in execute contexts).
	const cancelSignal = (context as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	const credentialOptions = resolved.credentialsDecrypted
		? { credentialsDecrypted: resolved.credentialsDecrypted }
		: undefined;

	let retryFirst = false;
	// n8n 1.x ignores `except: [401]` and hands an expired token's 401 back as an answer: that
	// attempt is sent again once with status errors thrown, so that n8n refreshes the token.
	let refreshAttempt: number | undefined;
	for (let retry = 0; ; retry++) {
		// A slot of the key's budget, taken before sending (in order; a retry goes first). Past Max
		// Rate-Limit Wait it is sent anyway: the server's 429 then says how long, and the cap fails clearly.
		const slot = await takeSlot(paceKey, {
			maxWaitMs: maxWaitSeconds * 1000,
			signal: cancelSignal,
			first: retryFirst,
		});
		let answer: HttpAnswer | undefined;
		let networkCode: string | undefined;
		let failureText: string | undefined;
		try {
			const response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				credentialType,
				{
					...options,
					headers: { ...headers },
					...(retry === refreshAttempt && { ignoreHttpStatusErrors: false }),
				},
				credentialOptions,
			)) as { statusCode: number; headers: IDataObject; body: unknown };
			answer = {
				status: response.statusCode,
				headers: response.headers ?? {},
				body: response.body,
			};
			if (answer.status === 401 && authentication === 'oAuth2' && refreshAttempt === undefined) {
				refreshAttempt = retry + 1;
				retryFirst = true;
				settle(slot);
				continue;
			}
		} catch (error) {
			const chain = errorChain(error);
			const fatal = isReconnectNeeded(chain)
				? reconnectError(node, itemIndex)
				: isNotConnected(chain)
					? notConnectedError(node, itemIndex)
					: isTlsVersionRefusal(chain)
						? tlsVersionError(node, resolved.host, itemIndex)
						: undefined;
			if (fatal) {
				settle(slot);
				throw fatal;
			}
			answer = answerFromError(chain);
			if (answer === undefined) {
				networkCode = networkCodeFromError(chain);
				failureText = chain
					.map((entry) => entry.message)
					.find((m): m is string => typeof m === 'string' && m !== '');
			}
		}

		const now = Date.now();
		let outcome: AttemptOutcome;
		if (answer !== undefined) {
			const info: RateLimitInfo = readRateLimitHeaders(answer.headers, now);
			const apiCode = (answer.body as { error?: { code?: unknown } } | undefined)?.error?.code;
			settle(slot, {
				status: answer.status,
				apiCode: typeof apiCode === 'string' ? apiCode : undefined,
				info,
			});
			if (answer.status >= 200 && answer.status < 300) {
				if (!isUnreadableBody(answer.body, answer.status, method)) {
					const empty = answer.body === undefined || answer.body === null || answer.body === '';
					return { statusCode: answer.status, body: empty ? {} : answer.body };
				}
				outcome = { kind: 'badBody', info };
			} else {
				outcome = {
					kind: 'status',
					status: answer.status,
					apiCode: typeof apiCode === 'string' ? apiCode : undefined,
					info,
				};
			}
		} else {
			settle(slot);
			outcome = { kind: 'network', code: networkCode };
		}

		const decision = decideRetry(outcome, method, retry, maxWaitSeconds, Math.random, resendable);
		if (decision.action === 'retry') {
			retryFirst = true;
			// A 429 that says when the window resets is waited out by the budget (the next slot).
			const pacedWait =
				outcome.kind === 'status' &&
				outcome.status === 429 &&
				(outcome.info.retryAfterSeconds !== undefined || outcome.info.resetSeconds !== undefined);
			if (!pacedWait) await wait(Math.round(decision.waitSeconds * 1000), cancelSignal);
			continue;
		}
		errorContext.secrets = await currentSecrets(context, resolved);
		if (answer === undefined) {
			throw networkError(node, networkCode, resolved.host, errorContext, retry + 1, failureText);
		}
		if (decision.reason === 'dailyQuota') {
			throw dailyQuotaError(node, answer.body, decision.waitSeconds, now, errorContext);
		}
		if (decision.reason === 'waitCap') {
			throw waitCapError(
				node,
				answer.status,
				answer.body,
				decision.waitSeconds ?? 0,
				maxWaitSeconds,
				errorContext,
			);
		}
		if (outcome.kind === 'badBody') throw badBodyError(node, answer.status, errorContext);
		let extra: string | undefined;
		if (decision.reason === 'exhausted') {
			extra = `Gave up after ${retry + 1} attempts.`;
		} else if (answer.status >= 500) {
			extra = mayHaveBeenApplied(method, resendable);
		}
		throw httpStatusError(node, answer.status, answer.body, errorContext, extra);
	}
}
