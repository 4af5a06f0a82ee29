/**
 * The billing port: what a metered call needs from the money side, whatever the capability.
 *
 *   const billing = billingFor(db, request, { hotPath });   // lib/billing/billing.ts
 *   const r = await billing.reserve(worstCase, { ttlMs });   // before the upstream call
 *   if (!r.ok) → 402 (r.reason), then billing.settle(null, { costMicroUsd: 0, log })
 *   … call the upstream …
 *   await billing.settle(r.hold, { costMicroUsd, log });      // charge, release the rest, one log row
 *
 * Two implementations behind it (billing.ts): per-request hold rows (holds.ts), and balance
 * leases served from memory (text-lease.ts) for the hot text path. Both settle through the same
 * statement (text-settle-batch.ts): the charge (clamped to the hold), the rest of the hold
 * returned, the ledger row and the request-log row commit together. The gateway depends on
 * these types; nothing here knows the gateway.
 */
import type { BudgetPeriod, BudgetScope, ModelPrice, RouteTraceEntry } from "../values";

/** Who pays and which request this is: fixed for the life of the request. */
export interface BillingRequest {
  requestId: string;
  accountId: string;
  /** null for playground calls made with a console session. */
  keyId: string | null;
  userId: string | null;
  source: "api" | "playground";
  method: string;
  /** The public route, e.g. "/v1/embeddings" (the log row's `route`). */
  route: string;
  /** performance.now() at arrival: the log row's latency is measured from it. */
  startedAt: number;
  /**
   * The process outlives the reply (the custom server), so `settle(…, { early: true })` may
   * answer before its settlement commits (decision 0006). False where a runtime may freeze the
   * process once it has answered.
   */
  settleAfterReply: boolean;
}

/**
 * What a reservation holds. A typed value: hand it back to `settle` as it came; its fields are
 * for logs and tests.
 */
export type Hold =
  /** A `holds` row of its own (per-request holds). */
  | { readonly kind: "row"; readonly holdId: string; readonly amountMicroUsd: number }
  /** A part of this process's lease of the account's balance (text leases). */
  | { readonly kind: "lease"; readonly leaseId: string; readonly amountMicroUsd: number };

/** The budget a request would pass, as the trigger names it. */
export interface BudgetRefusal {
  id: string;
  scope: BudgetScope;
  period: BudgetPeriod;
  limitMicroUsd: number;
  /** The window it counts (`2026-11-27`, `2026-W48`, `2026-11`). */
  window: string;
  /** What was left of it before the refused request (its hold is a worst case, so it may be > 0). */
  leftMicroUsd: number;
}

/** Why money could not be held or charged. */
export type Refusal =
  | { reason: "insufficient_balance"; /** The most the account could spend now (its free balance and every lease of it), when known. */ availableMicroUsd?: number }
  | { reason: "key_limit_exceeded" }
  /** The key's member would pass their monthly cap in the organisation (member-cap.ts). */
  | { reason: "member_cap_exceeded"; capMicroUsd: number }
  /** A budget of the organisation, the key's member or the key would pass its hard limit (spend-limits.ts). */
  | { reason: "budget_exceeded"; budget: BudgetRefusal };

/** A reservation's answer: the hold, or why not. Generic for holds of other shapes (a video task row). */
export type Reservation<H = Hold> = { ok: true; hold: H } | ({ ok: false } & Refusal);

/**
 * The request-log row's own fields; the request's identity (ids, route, method, source) comes
 * from BillingRequest, the cost from the settlement. Omitted counts are 0, omitted text null.
 */
export interface RequestLogFields {
  model: string | null;
  upstreamId?: string | null;
  upstreamProtocol?: string | null;
  /** The upstream's own name of the model that served; not stored (traces name it: gen_ai.response.model). */
  upstreamModel?: string | null;
  /** The client's wire protocol; default "openai". */
  inboundProtocol?: string | null;
  status: number;
  errorCode?: string | null;
  stream?: boolean;
  /** All prompt tokens and all output tokens; the classes below are parts of them. */
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  /** Text models that draw: image tokens, part of outputTokens (decision 0073). */
  imageOutputTokens?: number;
  /** Audio models (docs/audio.md): audio token parts of the totals, decoded duration, input characters. */
  audioInputTokens?: number;
  audioOutputTokens?: number;
  audioMs?: number | null;
  inputCharacters?: number | null;
  usageNote?: string | null;
  routing?: string | null;
  /** completed | completed_estimated | client_disconnect | upstream_error | rejected | invalid | task_submitted | … */
  settlement: string;
  priceSnapshot?: ModelPrice | null;
  /** Default: since BillingRequest.startedAt (never less). */
  latencyMs?: number;
  ttftMs?: number | null;
  replayedItems?: number | null;
  droppedParams?: string | null;
  /** The model that served (and whose price was charged) when `model` named an alias. */
  servedModel?: string | null;
  /** Which entries served, failed or were skipped, and why (lib/gateway/health/trace.ts). */
  routeTrace?: RouteTraceEntry[] | null;
  /** The guardrails applied and their verdict (docs/guardrails.md). */
  guardrails?: string | null;
  /** A response-cache hit: what the cached answer cost when it was made. */
  savedMicroUsd?: number | null;
}

export interface Settlement {
  /**
   * The real cost. Clamped to the hold (a true upper bound); not a finite number = the work was
   * done at an unknown price: the whole hold is charged and the log row says so.
   */
  costMicroUsd: number;
  log: RequestLogFields;
}

export interface Settled {
  /** What was charged (≤ the hold). */
  chargedMicroUsd: number;
  /** The balance right after the charge; null when not known (a log-only settlement). */
  balanceAfterMicroUsd: number | null;
}

export interface BillingPort {
  /**
   * Holds `amountMicroUsd` (rounded up) of the account's spendable money and of the key's limit,
   * or refuses. `ttlMs`: how long before the sweeper may return a hold row whose process died
   * (must outlive the longest upstream call and its failover).
   */
  reserve(amountMicroUsd: number, opts?: { ttlMs?: number }): Promise<Reservation>;
  /**
   * Charges the cost (at most the hold), returns the rest of the hold and writes the request's
   * one log row, atomically. `hold` null: a request refused before any hold, only its log row.
   * Idempotent: settling the same hold again changes nothing and answers as the first time.
   * With `early` (and BillingRequest.settleAfterReply), it may answer before the commit when
   * the balance after the charge is already known (decision 0006).
   */
  settle(hold: Hold | null, s: Settlement, opts?: { early?: boolean }): Promise<Settled>;
}
