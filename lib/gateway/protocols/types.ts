/**
 * What every inbound protocol module provides: parse its wire request into the canonical shape,
 * render the canonical response and stream events back in its own wire format, and render
 * errors in its own style (before a stream: the HTTP envelope; after: its in-stream error event).
 */
import type { CanonicalField, CanonicalRequest, CanonicalResponse, StreamEvent } from "../canonical";
import type { Result } from "../../result";
import type { ApiError, ErrorStyle } from "../errors";

export type { CanonicalField };

export type InboundProtocolName = "chat-completions" | "responses" | "messages" | "generate-content";

export interface ParseOptions {
  /** generateContent carries the model in the path. */
  pathModel?: string;
  /** generateContent chooses streaming by URL. */
  stream?: boolean;
}

export interface RenderContext {
  /** The public model id the client asked for; responses show it, never the upstream's name. */
  model: string;
  request: CanonicalRequest;
  /** The charge in micro-USD, when known at render time (put into the usage object). */
  costMicroUsd?: number;
}

export interface StreamEncoder {
  /** SSE text for one canonical event: each element is one SSE event, written and flushed alone. */
  encode(ev: StreamEvent): string[];
  /** The protocol's in-stream error event(s), after which the stream ends. */
  error(err: ApiError): string[];
}

export interface InboundProtocol {
  name: InboundProtocolName;
  errorStyle: ErrorStyle;
  parseRequest(body: unknown, opts?: ParseOptions): Result<CanonicalRequest, ApiError>;
  /** The client's own name for a canonical field, for 400 messages ("generationConfig.temperature"). */
  fieldName(field: CanonicalField | string): string;
  renderResponse(resp: CanonicalResponse, ctx: RenderContext): unknown;
  createStreamEncoder(ctx: RenderContext): StreamEncoder;
}
