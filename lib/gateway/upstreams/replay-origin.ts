/**
 * The mark a replayed Responses item carries: the upstream that produced it. Stored responses
 * (stored-responses/history.ts) set it when they expand history; the Responses adapter
 * (openai-responses.ts) reads it so a reasoning item's encrypted content goes back only to the
 * upstream that made it. It lives with the adapters so they need not import the capability.
 */
const ORIGIN = Symbol.for("gateway.storedResponses.origin");
type WithOrigin = { [ORIGIN]?: string | null };

/** The upstream that produced a replayed item (undefined for items the client sent itself). */
export function replayOrigin(item: unknown): string | null | undefined {
  return item && typeof item === "object" ? (item as WithOrigin)[ORIGIN] : undefined;
}

/** A copy of the item marked with the upstream that produced it. */
export function withOrigin<T extends object>(item: T, upstreamId: string | null): T {
  const copy = { ...item };
  // A symbol key: never serialised, so nothing of ours reaches an upstream.
  Object.defineProperty(copy, ORIGIN, { value: upstreamId, enumerable: false });
  return copy;
}
