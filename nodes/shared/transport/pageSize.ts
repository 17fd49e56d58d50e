// Page sizes (docs/api-contract.md, "Tolerant page size"): the nodes ask for up to 100; a refusal
// makes the list reader fall back once (pagination.ts), and what to send instead is remembered per
// credential in process memory only (a restart or another worker learns it with one refusal).
import type { INode } from 'n8n-workflow';

import type { ErpErrorFacts } from './apiError';

/** The largest page the nodes ask for, and the default. */
export const MAX_PAGE_SIZE = 100;

/** Credentials remembered at most (the oldest is forgotten first). */
const MAX_REMEMBERED = 1000;

/** Per credential: sizes of `from` or more go as `limit` (undefined: none, server default). */
const learnt = new Map<string, { from: number; limit: number | undefined }>();

/** The memory's key: the node's credential (type and id, else name) and the Base URL. No secret. */
export function pageSizeKey(node: INode, credentialType: string, baseUrl: string): string {
	const reference = node.credentials?.[credentialType];
	return `${credentialType}\n${reference?.id ?? reference?.name ?? ''}\n${baseUrl}`;
}

/** The `limit` to send for a page of `wanted` items (undefined: send none). */
export function limitToSend(key: string, wanted: number): number | undefined {
	const entry = learnt.get(key);
	return entry !== undefined && wanted >= entry.from ? entry.limit : wanted;
}

/** Remembers that `refused` was refused, and the maximum the server stated, if it stated one. */
export function rememberRefusal(key: string, refused: number, maximum?: number): void {
	learnt.delete(key);
	learnt.set(key, { from: maximum === undefined ? refused : maximum + 1, limit: maximum });
	if (learnt.size > MAX_REMEMBERED) learnt.delete(learnt.keys().next().value as string);
}

/** What the API's error said, as the transport keeps it (apiError.ts `apiErrorFacts`). */
export type RefusalFacts = Pick<ErpErrorFacts, 'httpCode'> &
	Partial<Pick<ErpErrorFacts, 'apiMessage' | 'details'>>;

// A text that names the page size parameter (`limit` by default): "limit must be between 1 and
// 50", "'limit' must be <= 50", "limit: at most 50", "Invalid query parameter limit", "invalid
// value for limit". Not "the date range exceeds the limit of 1 year" nor "rate limit exceeded".
function namesParameter(name: string): RegExp[] {
	const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return [
		new RegExp(
			`(?:^|[^\\w.-])["'\`]?${n}["'\`]?(?=\\s*(?:[:=<>(]|$)|\\s+(?:must|should|is|has|cannot|can't|may|exceeds|parameter|value|out)\\b)`,
			'i',
		),
		new RegExp(`\\b(?:parameter|param|field|argument|for)\\s+["'\`]?${n}(?!\\w)`, 'i'),
	];
}

// The maximum a text states: "between 1 and 50", "from 1 to 50", "at most 50", "max 50",
// "maximum is 50", "<= 50", "up to 50", "not greater than 50", "must not exceed 50".
const STATES_MAXIMUM = [
	/\bbetween\s+\d+\s+and\s+(\d+)\b/i,
	/\bfrom\s+\d+\s+to\s+(\d+)\b/i,
	/(?:\bat most|\bno more than|\bnot (?:be )?(?:greater|more|larger) than|\bmaximum(?: is| of)?|\bmax\b\.?|<=|≤|\bup to|\bexceed)\s*:?\s*(\d+)\b/i,
];

function namesField(field: unknown, name: string): boolean {
	if (typeof field !== 'string') return false;
	const f = field.trim().toLowerCase();
	const n = name.toLowerCase();
	return f === n || f.endsWith(`.${n}`) || f.endsWith(`[${n}]`);
}

// Whether a 400 or 422 refuses the page size `sent`: its details name the field `name` (the page
// size parameter), or a message names it. `maximum`: the largest size stated, if below `sent`.
export function limitRefusal(
	facts: RefusalFacts | undefined,
	sent: number,
	name = 'limit',
): { maximum?: number } | undefined {
	if (!facts || (facts.httpCode !== 400 && facts.httpCode !== 422)) return undefined;
	const details = facts.details ?? [];
	const texts = [facts.apiMessage, ...details.map((detail) => detail.message)].filter(
		(text): text is string => typeof text === 'string' && text !== '',
	);
	const patterns = namesParameter(name);
	const aboutLimit =
		details.some((detail) => namesField(detail.field, name)) ||
		texts.some((text) => patterns.some((pattern) => pattern.test(text)));
	if (!aboutLimit) return undefined;
	for (const text of texts) {
		for (const pattern of STATES_MAXIMUM) {
			const stated = Number(pattern.exec(text)?.[1]);
			if (Number.isSafeInteger(stated) && stated >= 1 && stated < sent) return { maximum: stated };
		}
	}
	return {};
}
