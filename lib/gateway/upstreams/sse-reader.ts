/**
 * Upstream SSE → messages, with `eventsource-parser`. The body's idle timeout and the client's
 * abort surface as thrown UpstreamStreamError values the route turns into the protocol's
 * in-stream error (or a retry, when nothing reached the client yet).
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errors, transportFailure, type ApiError } from "../errors";

export class UpstreamStreamError extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly retryable: boolean,
  ) {
    super(apiError.message);
  }
}

export function invalidUpstreamEvent(what: string): UpstreamStreamError {
  return new UpstreamStreamError(errors.upstream(`The upstream sent an invalid stream event (${what}).`), true);
}

export async function* readSse(body: AsyncIterable<Buffer | Uint8Array>, signal: AbortSignal): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (m) => queue.push(m) });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      while (queue.length) yield queue.shift()!;
    }
  } catch (err) {
    if (err instanceof UpstreamStreamError) throw err;
    const f = transportFailure(err, signal);
    throw new UpstreamStreamError(f.error, f.retryable);
  }
  parser.feed(decoder.decode() + "\n\n");
  while (queue.length) yield queue.shift()!;
}

export function parseJsonEvent(data: string): Record<string, unknown> {
  try {
    const v = JSON.parse(data) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw invalidUpstreamEvent("not a JSON object");
}
