/**
 * One (public model, upstream) entry of the catalog, as every capability receives it: text,
 * embeddings, images and video adapters all take this one shape. Types only, so upstream
 * adapters can use it without loading the catalog (and its database).
 */
import type { ModelKind, ModelPrice, UpstreamCredentials, UpstreamProtocol, UpstreamSettings, VideoFamily } from "../../db/schema";

export interface UpstreamInfo {
  id: string;
  protocol: UpstreamProtocol;
  /** openai, openai-video: includes `/v1`; anthropic, gemini: the host only. */
  baseUrl: string;
  /** Decrypted; never log it, never return it. */
  apiKey: string | null;
  timeoutMs: number | null;
  /** Non-secret protocol settings (an `openai` upstream's vendor); absent = the defaults. */
  settings?: UpstreamSettings;
  /** Decrypted secrets beyond the key (an Entra client secret); never log them, never return them. */
  credentials?: UpstreamCredentials;
}

export interface ModelRoute {
  rowId: string;
  /** The public model id of this entry: the one asked for, or an alias's target (the serving model). */
  modelId: string;
  kind: ModelKind;
  family: VideoFamily | null;
  ownedBy: string;
  upstreamModel: string;
  /** Integer micro-USD (per million tokens for token prices; perVideo or perSecond for video). */
  price: ModelPrice;
  defaultMaxTokens: number | null;
  /** Prompt + output tokens the model takes (null = not configured); an alias's context fallback reads it. */
  contextWindow?: number | null;
  /** Hints are refused, not dropped (docs/conversion-policy.md). */
  strict: boolean;
  /** Routing tier among the id's entries: lower is tried first (lib/gateway/health/routing.ts); absent = 0. */
  priority?: number;
  /** Share of the tier's requests (0 = only after the rest of the tier); absent = 1. */
  weight?: number;
  upstream: UpstreamInfo;
}
