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

export function readSse(body: AsyncIterable<Buffer | Uint8Array>, signal: AbortSignal): AsyncGenerator<EventSourceMessage> {
  return readSseAs(body, signal, (m) => m);
}

/**
 * Upstream SSE → `map`'s value for each message, then `end`'s (when not null) once the body
 * ended; the body is destroyed however the reading stops. Reading and parsing fail as
 * UpstreamStreamError; `map`'s and `end`'s own errors pass as they are. A reader that maps each
 * message (the text path's decoder) does it here rather than iterating `readSse`: one async
 * generator less between the socket and the client on every event (decision 0076). Declared at
 * module level, not per call (decision 0033).
 */
export async function* readSseAs<T>(
  body: AsyncIterable<Buffer | Uint8Array>,
  signal: AbortSignal,
  map: (m: EventSourceMessage) => T,
  end?: () => T | null,
): AsyncGenerator<T> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (m) => queue.push(m) });
  const decoder = new TextDecoder();
  const reading = body[Symbol.asyncIterator]();
  let ended = false;
  try {
    while (!ended) {
      try {
        const next = await reading.next();
        ended = next.done === true;
        parser.feed(ended ? decoder.decode() + "\n\n" : decoder.decode(next.value, { stream: true }));
      } catch (err) {
        if (err instanceof UpstreamStreamError) throw err;
        const f = transportFailure(err, signal);
        throw new UpstreamStreamError(f.error, f.retryable);
      }
      for (let i = 0; i < queue.length; i++) yield map(queue[i]!);
      queue.length = 0;
    }
    const last = end?.() ?? null;
    if (last !== null) yield last;
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
