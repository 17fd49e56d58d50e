// Request settings: the node parameters the transport reads (authentication, requestOptions).
import type { IDataObject, IExecuteFunctions, IHookFunctions } from 'n8n-workflow';

import { MAX_WAIT_CAP_SECONDS, requestOptionsDescription } from '../descriptions';
import { invalid as invalidValue, labelOf } from '../validation';
import type { ErpContext, ErpRequestSettings } from './types';

export function isExecuteContext(context: ErpContext): context is IExecuteFunctions {
	return typeof (context as IExecuteFunctions).getInputData === 'function';
}

/** A node parameter, from any kind of context. */
export function nodeParameter(
	context: ErpContext,
	name: string,
	itemIndex: number | undefined,
	fallback: unknown,
): unknown {
	if (isExecuteContext(context)) {
		return context.getNodeParameter(name, itemIndex ?? 0, fallback);
	}
	return (context as IHookFunctions).getNodeParameter(name, fallback);
}

export function authenticationOf(context: ErpContext, itemIndex?: number): 'apiKey' | 'oAuth2' {
	return nodeParameter(context, 'authentication', itemIndex, 'apiKey') === 'oAuth2'
		? 'oAuth2'
		: 'apiKey';
}

/** Longest custom Idempotency-Key accepted (the common limit of APIs that take one). */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Reads and checks the node's `requestOptions` collection (see requestOptionsDescription).
 * An invalid value is a NodeOperationError naming the option (the shared input-check message),
 * raised before any request.
 */
export function getRequestSettings(context: ErpContext, itemIndex?: number): ErpRequestSettings {
	const options = (nodeParameter(context, 'requestOptions', itemIndex, {}) ?? {}) as IDataObject;
	const invalid = (option: string, expected: string) =>
		invalidValue(
			{
				node: context.getNode(),
				label: labelOf([requestOptionsDescription], 'requestOptions', option),
				itemIndex,
			},
			expected,
		);
	const settings: ErpRequestSettings = {};

	const { maxWaitSeconds } = options;
	if (maxWaitSeconds !== undefined && maxWaitSeconds !== null && maxWaitSeconds !== '') {
		const seconds = typeof maxWaitSeconds === 'string' ? Number(maxWaitSeconds) : maxWaitSeconds;
		if (
			typeof seconds !== 'number' ||
			!Number.isFinite(seconds) ||
			seconds < 0 ||
			seconds > MAX_WAIT_CAP_SECONDS
		) {
			throw invalid(
				'maxWaitSeconds',
				`expected a number of seconds from 0 to ${MAX_WAIT_CAP_SECONDS}`,
			);
		}
		settings.maxWaitSeconds = seconds;
	}

	const { idempotency, customIdempotencyKey } = options;
	let custom: string | undefined;
	if (
		customIdempotencyKey !== undefined &&
		customIdempotencyKey !== null &&
		customIdempotencyKey !== ''
	) {
		if (typeof customIdempotencyKey !== 'string' && typeof customIdempotencyKey !== 'number') {
			throw invalid('customIdempotencyKey', 'expected text, such as an order number');
		}
		custom = String(customIdempotencyKey).trim();
		if (custom.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7E]*$/.test(custom)) {
			throw invalid(
				'customIdempotencyKey',
				`expected at most ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (letters, digits, - _ . and the like)`,
			);
		}
	}
	if (
		idempotency === undefined ||
		idempotency === null ||
		idempotency === '' ||
		idempotency === 'auto'
	) {
		settings.idempotencyKey = 'auto';
	} else if (idempotency === 'off') {
		settings.idempotencyKey = 'off';
	} else if (idempotency === 'custom') {
		if (!custom) {
			throw invalid(
				'customIdempotencyKey',
				'a key is required: enter one (for example an order number) or set Idempotency Key to Automatic',
			);
		}
		settings.idempotencyKey = custom;
	} else {
		throw invalid('idempotency', 'expected Automatic (auto), Custom (custom) or Off (off)');
	}
	return settings;
}
