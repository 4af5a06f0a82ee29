/**
 * One (public model, upstream) entry of the catalog, as every capability receives it: text,
 * embeddings, images and video adapters all take this one shape. Types only, so upstream
 * adapters can use it without loading the catalog (and its database).
 */
import type { ModelKind, ModelPrice, UpstreamProtocol, VideoFamily } from "../../db/schema";

export interface UpstreamInfo {
  id: string;
  protocol: UpstreamProtocol;
  /** openai, openai-video: includes `/v1`; anthropic, gemini: the host only. */
  baseUrl: string;
  /** Decrypted; never log it, never return it. */
  apiKey: string | null;
  timeoutMs: number | null;
}

export interface ModelRoute {
  rowId: string;
  /** The public model id the client asked for. */
  modelId: string;
  kind: ModelKind;
  family: VideoFamily | null;
  ownedBy: string;
  upstreamModel: string;
  /** Integer micro-USD (per million tokens for token prices; perVideo or perSecond for video). */
  price: ModelPrice;
  defaultMaxTokens: number | null;
  /** Hints are refused, not dropped (docs/conversion-policy.md). */
  strict: boolean;
  upstream: UpstreamInfo;
}
