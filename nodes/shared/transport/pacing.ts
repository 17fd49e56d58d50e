// The process-wide rate-limit budgets, one per credential type, base URL and key: every request
// takes a slot before it is sent and gives its answer back (see the arithmetic in budget.ts).
// Waits (wait.ts) end when the execution is cancelled.
import { createHash } from 'crypto';

import {
	newBudget,
	observeAnswer,
	observeNoAnswer,
	paceDecision,
	pruneBudgets,
	reserve,
} from './budget';
import type { Budget } from './budget';
import type { RateLimitInfo } from './rateLimit';
import { gateWaitMs } from './learned';
import { wait } from './wait';

const budgets = new Map<string, Budget>();

/**
 * The budget's name: a hash of the credential type, the base URL and the key (the API key, or
 * the credential for OAuth2, whose tokens change), so that no secret is kept in clear.
 */
export function budgetKey(credentialType: string, baseUrl: string, key: string): string {
	return createHash('sha256').update(`${credentialType}\n${baseUrl}\n${key}`).digest('hex');
}

/** A slot taken in a budget: hand it back with `settle` once the request has its outcome. */
export interface Slot {
	budget: Budget;
	sentAtMs: number;
	probe: boolean;
	paced: boolean;
	settled: boolean;
}

/**
 * Waits, in the order of arrival (`first`: ahead of everyone, for a retry), until the budget has a
 * slot, and takes it. A wait for the window's reset longer than `maxWaitMs` is not made: the
 * request is sent at once, so that the server's 429 tells how long and the caller fails clearly.
 */
export async function takeSlot(
	key: string,
	options: { maxWaitMs: number; signal?: AbortSignal; first?: boolean; ratePerMinute?: number },
): Promise<Slot> {
	const start = Date.now();
	pruneBudgets(budgets, start);
	let budget = budgets.get(key);
	if (budget === undefined) {
		budget = newBudget(start);
		budgets.set(key, budget);
	}
	// The credential's rate (undefined: not set), as the credential says it now.
	budget.learned.ratePerMinute = options.ratePerMinute;
	const ticket = budget.nextTicket++;
	if (options.first) budget.queue.unshift(ticket);
	else budget.queue.push(ticket);
	try {
		for (;;) {
			const now = Date.now();
			const decision = paceDecision(budget, budget.queue.indexOf(ticket), now);
			const pastCap =
				decision.action === 'wait' &&
				decision.reason === 'reset' &&
				decision.ms > options.maxWaitMs;
			if (decision.action === 'send' || pastCap) {
				const probe = decision.action === 'send' && decision.probe;
				reserve(budget, now, probe);
				return { budget, sentAtMs: now, probe, paced: !pastCap, settled: false };
			}
			await wait(decision.ms, options.signal);
		}
	} finally {
		const index = budget.queue.indexOf(ticket);
		if (index >= 0) budget.queue.splice(index, 1);
	}
}

/** Gives the slot back with what the answer said (nothing when there was no answer). Once only. */
export function settle(
	slot: Slot,
	answer?: { status: number; apiCode?: string; info: RateLimitInfo },
): void {
	if (slot.settled) return;
	slot.settled = true;
	const now = Date.now();
	if (answer === undefined) {
		observeNoAnswer(slot.budget, slot.probe, now);
		return;
	}
	observeAnswer(
		slot.budget,
		{ ...answer, sentAtMs: slot.sentAtMs, probe: slot.probe, paced: slot.paced },
		now,
	);
}

/** How long the slot's key stays closed from `nowMs` (a 429's wait, named or chosen), in seconds. */
export function gateSeconds(slot: Slot, nowMs: number): number {
	return (gateWaitMs(slot.budget.learned, nowMs, 0) ?? 0) / 1000;
}

/** How many budgets this process keeps (for tests of the bound). */
export function budgetCount(): number {
	return budgets.size;
}
