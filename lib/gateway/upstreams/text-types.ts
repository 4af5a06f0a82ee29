/**
 * The contract between the text route and the text upstream adapters (openai, anthropic,
 * gemini, their cloud variants, bedrock, demo). An adapter first `prepare`s a call (where a target that cannot express a field
 * says so, before any money moves), then `complete`s or `stream`s it.
 */
import type { Inexpressible, TargetCapabilities } from "../conversion/policy";
import type { CanonicalRequest, CanonicalResponse, StreamEvent } from "../canonical";
import type { Outcome } from "../errors";
import type { ModelRoute } from "../model-route";
import type { Ok } from "../../result";

export type { FieldRefusal, Inexpressible } from "../conversion/policy";

/** A request builder's body, and what it dropped beyond the generic hints (named in x-gateway-dropped-params). */
export interface Built extends Ok<Record<string, unknown>> {
  dropped?: string[];
  /** The assistant text the body ends with (a prefill): the answer continues it, and is shown with it. */
  prefill?: string;
}

/** A request builder's part or a refusal (parts are plain records, so `"ok" in x` cannot tell). */
export function isInexpressible(v: unknown): v is Inexpressible {
  return typeof v === "object" && v !== null && (v as { ok?: unknown }).ok === false;
}

export interface PreparedCall {
  route: ModelRoute;
  /** The public model id (raw passthrough events are rewritten to show it). */
  publicModel: string;
  stream: boolean;
  /** Wire body for HTTP adapters; the canonical request for in-process ones. */
  body: unknown;
  /** Converted: the client's parsed JSON, whose long strings the body may copy as sent (raw-json.ts). */
  source?: unknown;
  request: CanonicalRequest;
  /** True when the body was the client's own wire JSON (same protocol in and out). */
  passthrough: boolean;
  /** CC passthrough only: the client did not ask for the usage chunk we force upstream. */
  hideUsageChunk?: boolean;
  /** Fields the request builder dropped (model rules, e.g. sampling with thinking on). */
  dropped?: string[];
  /** Fields the target has no switch for, which the gateway enforces on the answer (x-gateway-enforced-params). */
  enforced?: string[];
  /** The prefill the body ends with (Built.prefill): put back in front of the answer's text. */
  prefill?: string;
  /** Converted: upstream tool name → the client's, for names the target refused (tool-names.ts). */
  toolNames?: Record<string, string>;
  /**
   * Passthrough: the client's vendor headers from the allow-list (anthropic-beta, …); at call
   * time, on a copy, also a token-signed upstream's auth header (authenticated.ts).
   */
  headers?: Record<string, string>;
}

/** The client's request headers, as node gives them. */
export type ClientHeaders = Record<string, string | string[] | undefined>;

/** One upstream SSE event: its canonical meaning and, for passthrough, the parsed wire JSON. */
export interface UpstreamChunk {
  events: StreamEvent[];
  /** SSE `event:` name (AM needs it re-emitted). */
  eventName?: string;
  /** Parsed `data:` JSON (model already rewritten to the public id); absent for `[DONE]`. */
  json?: Record<string, unknown>;
  /** The raw `data: [DONE]` terminator of CC. */
  doneMarker?: boolean;
}

export interface CallOptions {
  /** The client's signal: a disconnect aborts the upstream call. */
  signal: AbortSignal;
  /** Time to the response head (and, for streams, the longest silence between events). */
  timeoutMs: number;
}

export interface CompleteResult {
  response: CanonicalResponse;
  /** The upstream's JSON with the model rewritten, for passthrough rendering. */
  raw?: Record<string, unknown>;
}

export interface InlineMediaSpec {
  images: boolean;
  documents: boolean;
  /** The most the target takes inline in one request (bytes, before base64), and the doc that says so. */
  maxInlineBytes: number;
  limitName: string;
}

export interface TextAdapter {
  /**
   * Converted routes only, before `prepare`: what the target needs fetched first (image/document
   * URLs it cannot take, downloaded and inlined by inline-media.ts), and how many bytes it takes inline.
   */
  inlineMedia?: InlineMediaSpec;
  /** `raw`: the client's own JSON, on a passthrough only. `headers`: the client's, on every call. */
  prepare(route: ModelRoute, req: CanonicalRequest, raw?: Record<string, unknown>, headers?: ClientHeaders): Ok<PreparedCall> | Inexpressible;
  /** Hints and hosted tools the target takes (the conversion policy drops the rest). */
  capabilities: TargetCapabilities;
  complete(call: PreparedCall, opts: CallOptions): Promise<Outcome<CompleteResult>>;
  /**
   * A whole answer the upstream gave another way (a line of its batch API's results, decision
   * 0070) → what `complete` gives for it. Absent: the protocol's answers come only from `complete`.
   */
  decode?(call: PreparedCall, json: Record<string, unknown>): Promise<Outcome<CompleteResult>>;
  /** Resolves once the upstream accepted (2xx head); the iterator then yields its events. */
  stream(call: PreparedCall, opts: CallOptions): Promise<Outcome<AsyncIterable<UpstreamChunk>>>;
  /** The inbound protocol that may pass through to this adapter unchanged, and how its events are rendered. */
  passthrough?: PassthroughCodec;
}

export interface PassthroughCodec {
  /** The inbound protocol (InboundProtocol.name) whose JSON this adapter takes unchanged. */
  inbound: string;
  /** Puts the charge into the JSON that carries the final usage (a whole answer or an event). */
  injectCost(json: Record<string, unknown>, costMicroUsd: number): void;
  /**
   * The client's bytes for one upstream event. `costMicroUsd` is set on the event that
   * finishes the answer (the charge is known then).
   */
  renderEvent(chunk: UpstreamChunk, call: PreparedCall, costMicroUsd: number | undefined): string[];
}
