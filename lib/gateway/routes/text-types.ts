/** What the text handler needs from the outside: the catalog's routes and the money. */
import type { ModelPrice, RouteTraceEntry } from "../../../db/schema";
import type { Hold } from "../../billing/port";
import type { ApiError } from "../errors";
import type { RetryPolicy } from "../upstreams/failover";
import type { ModelRoute } from "../model-route";
import type { Alias } from "../aliases";
import type { AdmitResult } from "../token-limits";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import type { ClientHeaders } from "../upstreams/text-types";

export type SettlementReason = "completed" | "client_disconnect" | "upstream_error" | "rejected" | "invalid_request";

/** Everything the request-log row and the ledger need, written in one transaction. */
export interface TextSettlement {
  /** What `reserve` held; null for a request refused before any hold (only its log row). */
  hold: Hold | null;
  /** The charge (already clamped to the hold). */
  costMicroUsd: number;
  reason: SettlementReason;
  status: number;
  errorCode?: string;
  model: string | null;
  route: ModelRoute | null;
  inboundProtocol: string;
  stream: boolean;
  /** All prompt tokens and all output tokens; the classes below are parts of them (canonical Usage). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  usageEstimated: boolean;
  /** What was wrong with the upstream's usage, for the log row (no content, field names only). */
  usageNote?: string | null;
  /** How the serving upstream entry was chosen (`sticky` or `order`). */
  routing?: string | null;
  priceSnapshot: ModelPrice | null;
  latencyMs: number;
  ttftMs: number | null;
  /** Responses API: stored items replayed into the prompt (set by the responses route). */
  replayedItems?: number;
  /** Hints dropped for the serving upstream (x-gateway-dropped-params), comma-separated. */
  droppedParams?: string | null;
  /** The model that served when it is not the one asked for (an alias's target). */
  servedModel?: string | null;
  /** Which entries served, failed or were skipped (request_logs.route_trace). */
  routeTrace?: RouteTraceEntry[] | null;
}

export type ReserveOutcome =
  | { ok: true; hold: Hold }
  /** A 402 for the balance says what was available, so the answer can say what would fit. */
  | { ok: false; error: ApiError; availableMicroUsd?: number };

export interface TextBilling {
  /** Holds the worst case; a refusal (402) must leave no trace but the log row. */
  reserve(amountMicroUsd: number): Promise<ReserveOutcome>;
  /**
   * Charges and releases the hold (when there is one) and writes the log row, atomically. With
   * `early`, it may answer before the settlement commits when the charge and the balance after
   * it are already known (see lib/billing/balance-view.ts).
   */
  settle(s: TextSettlement, opts?: { early?: boolean }): Promise<{ chargedMicroUsd: number; balanceAfterMicroUsd: number | null }>;
}

export interface TextDeps {
  resolveRoutes(model: string): Promise<{ ok: true; routes: ModelRoute[]; alias?: Alias } | { ok: false; error: ApiError }>;
  /** Tokens-per-minute and concurrency admission (lib/gateway/token-limits.ts); none = unlimited. */
  admitTokens?(tokens: number): Promise<AdmitResult>;
  billing: TextBilling;
  retry?: RetryPolicy;
  /** Whose prompt-cache affinity this request shares (the API key, or the user in the playground); none = no affinity. */
  affinityScope?: string;
  /** Whose failures these are for upstream health (the organisation; decision 0035). */
  caller?: string;
  /** Default upstream timeout when the route sets none. */
  defaultTimeoutMs?: number;
}

export interface TextCall {
  protocol: InboundProtocol;
  /** The parsed JSON body. */
  body: unknown;
  /** Its size in bytes (bounds the prompt of a passthrough request). */
  bodyBytes: number;
  parseOpts?: ParseOptions;
  signal: AbortSignal;
  /** performance.now() at arrival. */
  startedAt: number;
  /** The client's headers: a passthrough forwards vendor ones from an allow-list. */
  headers?: ClientHeaders;
  /**
   * A stream may end before its settlement starts: RouteContext.settleAfterReply, unless the
   * request is traced (its span ends with the stream and must hold the settlement's span).
   */
  settleAfterReply?: boolean;
}
