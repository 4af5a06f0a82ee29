/**
 * Bedrock Runtime's binary event stream (ConverseStream, InvokeModelWithResponseStream), split
 * and decoded by the AWS SDK's codec (@smithy/core/event-streams: prelude and message CRCs
 * checked), never by hand. Each message is handed on as (JSON text, event type); an exception
 * message (throttling, model errors) as its exception type behind EXCEPTION.
 */
import { EventStreamCodec, getChunkedStream } from "@smithy/core/event-streams";
import { errors } from "../errors";
import type { UpstreamResponse } from "./http";
import { invalidUpstreamEvent, UpstreamStreamError } from "./sse-reader";
import type { ChunkDecoder } from "./text-http-call";
import type { UpstreamChunk } from "./text-types";

const utf8 = new TextDecoder();
const codec = new EventStreamCodec((bytes) => utf8.decode(bytes), (text) => new TextEncoder().encode(text));

/** How an exception message's type is handed to the decoder beside ordinary event types. */
export const EXCEPTION = "exception:";

/** The stream's messages through `decoder`, then its end; the body is released however it stops. */
export async function* bedrockEvents(body: UpstreamResponse["body"], decoder: ChunkDecoder): AsyncGenerator<UpstreamChunk> {
  try {
    for await (const raw of getChunkedStream(body as AsyncIterable<Uint8Array>)) {
      let m;
      try {
        m = codec.decode(raw);
      } catch {
        throw invalidUpstreamEvent("a malformed event-stream message");
      }
      const h = (name: string) => (m.headers[name]?.type === "string" ? String(m.headers[name]!.value) : undefined);
      const event = h(":message-type") === "exception" ? `${EXCEPTION}${h(":exception-type") ?? "exception"}` : h(":event-type");
      yield decoder.push(utf8.decode(m.body), event);
    }
    const last = decoder.end();
    if (last) yield last;
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

/** A JSON object payload, or the stream is garbage. */
export function parseEventPayload(data: string): Record<string, unknown> {
  try {
    const v = JSON.parse(data) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw invalidUpstreamEvent("not a JSON object");
}

/** An exception message mid-stream: the client's stream ends with its protocol's error event. */
export function bedrockStreamException(exceptionType: string, payload: Record<string, unknown>): never {
  const retryable = /throttling|serviceUnavailable|internalServer|modelStreamError/i.test(exceptionType);
  throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${exceptionType}: ${String(payload.message ?? "no message")}`), retryable);
}
