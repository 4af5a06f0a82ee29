/** What the text handler needs from the outside: the catalog's routes and the money (the billing port). */
import type { BillingPort } from "../../billing/port";
import type { ApiError } from "../errors";
import type { RetryPolicy } from "../upstreams/failover";
import type { ModelRoute } from "../model-route";
import type { ResolvedModel } from "../catalog";
import type { Result } from "../../result";
import type { AdmitResult } from "../token-limits";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import type { ClientHeaders } from "../upstreams/text-types";
import type { Guard } from "../guardrails/registry";
import type { CacheScope } from "../response-cache/cache";
import type { ContentLogTarget } from "../../content-logs/store";
import type { Outcome } from "../errors";
import type { CompleteResult, PreparedCall, TextAdapter } from "../upstreams/text-types";

/** `guardrail_blocked`: a post_response guardrail blocked the answer (charged what the upstream did); `cache_hit`: served from the response cache ($0). */
export type SettlementReason = "completed" | "client_disconnect" | "upstream_error" | "rejected" | "invalid_request" | "guardrail_blocked" | "cache_hit";

export interface TextDeps {
  resolveRoutes(model: string): Promise<Result<ResolvedModel, ApiError>>;
  /** Tokens-per-minute and concurrency admission (lib/gateway/token-limits.ts); none = unlimited. */
  admitTokens?(tokens: number): Promise<AdmitResult>;
  /** The money: the billing port itself (text-run.ts builds the log row). */
  billing: BillingPort;
  retry?: RetryPolicy;
  /** Whose prompt-cache affinity this request shares (the API key, or the user in the playground); none = no affinity. */
  affinityScope?: string;
  /** Whose failures these are for upstream health (the organisation; decision 0035). */
  caller?: string;
  /** Default upstream timeout when the route sets none. */
  defaultTimeoutMs?: number;
  /** The organisation's guardrails (lib/gateway/guardrails); absent = none configured, nothing checked. */
  guardrails?: readonly Guard[] | null;
  /** The exact response cache, when the request or its key asks for it (lib/gateway/response-cache); absent = off. */
  cache?: CacheScope | null;
  /** The caller's gateway files the body names, inline (lib/gateway/files/inline-refs.ts; decision 0074); null = it names none. */
  inlineFiles?(body: unknown): Promise<Result<{ body: unknown; addedBytes: number } | null, ApiError>>;
  /** Set only when the organisation logs prompts and answers (docs/content-logs.md): whose log it is. */
  contentLog?: ContentLogTarget;
  /** The answer a vendor's batch API already gave for this request (decision 0070): it replaces the upstream call. */
  answered?: (route: ModelRoute, call: PreparedCall, adapter: TextAdapter) => Promise<Outcome<CompleteResult>>;
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
