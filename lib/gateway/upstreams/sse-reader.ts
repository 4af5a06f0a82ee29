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

/** Upstream SSE → one message at a time (audio and image streams; text reads batches: `readSseBatches`). */
export async function* readSse(body: AsyncIterable<Buffer | Uint8Array>, signal: AbortSignal): AsyncGenerator<EventSourceMessage> {
  for await (const batch of readSseBatches(body, signal, (m) => m)) yield* batch;
}

/**
 * Upstream SSE → `map`'s values for the messages one network read completed, as one batch, then
 * `end`'s (when not null) once the body ended; the body is destroyed however the reading stops.
 * Reading and parsing fail as UpstreamStreamError; `map`'s and `end`'s own errors pass as they
 * are. A batch per read, not a value per message: an upstream sends a stream's events a few
 * network reads at a time, and each value crossing the generators between the socket and the
 * client costs a promise, a resume and a write of its own (decision 0078). A read that completes
 * no message yields nothing. Declared at module level, not per call (decision 0033).
 */
export async function* readSseBatches<T>(
  body: AsyncIterable<Buffer | Uint8Array>,
  signal: AbortSignal,
  map: (m: EventSourceMessage) => T,
  end?: () => T | null,
): AsyncGenerator<T[]> {
  let batch: T[] = [];
  // `map` throwing (an upstream's error event) ends the stream after the values before it.
  let failed: { error: unknown } | null = null;
  const parser = createParser({
    onEvent: (m) => {
      if (failed) return;
      try {
        batch.push(map(m));
      } catch (error) {
        failed = { error };
      }
    },
  });
  const decoder = new TextDecoder();
  const reading = body[Symbol.asyncIterator]();
  let ended = false;
  try {
    while (!ended) {
      let next: IteratorResult<Buffer | Uint8Array>;
      try {
        next = await reading.next();
      } catch (err) {
        if (err instanceof UpstreamStreamError) throw err;
        const f = transportFailure(err, signal);
        throw new UpstreamStreamError(f.error, f.retryable);
      }
      ended = next.done === true;
      parser.feed(ended ? decoder.decode() + "\n\n" : decoder.decode(next.value, { stream: true }));
      if (ended && !failed) {
        const last = end?.() ?? null;
        if (last !== null) batch.push(last);
      }
      if (batch.length) {
        const full = batch;
        batch = [];
        yield full;
      }
      if (failed) throw (failed as { error: unknown }).error;
    }
  } finally {
    // Stopping early (client gone, error) must release the upstream socket at once.
    if (!ended) reading.return?.()?.catch(() => undefined);
    const stream = body as { destroyed?: boolean; destroy?: () => void };
    if (typeof stream.destroy === "function" && !stream.destroyed) stream.destroy();
  }
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
