/**
 * Prompt-cache affinity: a request of one key with the same `prompt_cache_key` (or, without
 * one, the same prompt prefix) goes to the upstream entry that served the last such request,
 * while that entry's cache can still hold it — a cache hit is worth more than the configured
 * order. Only for models with several entries; in memory, per instance (a miss costs one
 * uncached prompt, never correctness). The choice is written on the request-log row (`routing`).
 */
import { createHash } from "node:crypto";
import type { CanonicalRequest } from "../canonical";
import type { ModelRoute } from "../model-route";
import { processSingleton } from "../../process-singleton";

/** How much of the prompt identifies a prefix: the system prompt, the tools and the start of the first turn. */
const PREFIX_CHARS = 4096;
const MAX_ENTRIES = 50_000;
const SHORT_TTL_MS = 5 * 60_000;
const LONG_TTL_MS = 60 * 60_000;

type Entry = { rowId: string; until: number };
const table = processSingleton("gateway.textAffinity", () => new Map<string, Entry>());

export function affinityKey(scope: string, req: CanonicalRequest): string {
  const h = createHash("sha256").update(scope).update("\0").update(req.model).update("\0");
  if (req.promptCacheKey !== undefined) h.update("key\0").update(req.promptCacheKey);
  else {
    h.update("prefix\0").update(req.system ?? "").update("\0");
    for (const t of req.tools ?? []) h.update(t.name).update("\0");
    const first = req.messages[0];
    let text = "";
    for (const p of first?.parts ?? []) if (p.type === "text") text += p.text;
    h.update(text.slice(0, PREFIX_CHARS));
  }
  return h.digest("base64url");
}

/** The usable routes reordered: the remembered entry first. `routing` names what decided. */
export function orderByAffinity(key: string, routes: ModelRoute[], now = Date.now()): { routes: ModelRoute[]; routing: "sticky" | "order" } {
  const hit = table().get(key);
  if (!hit || hit.until < now) return { routes, routing: "order" };
  // Only among the entries of the first model: an alias's later targets stay fallbacks.
  const i = routes.findIndex((r) => r.rowId === hit.rowId && r.modelId === routes[0]!.modelId);
  if (i <= 0) return { routes, routing: i === 0 ? "sticky" : "order" };
  return { routes: [routes[i]!, ...routes.slice(0, i), ...routes.slice(i + 1)], routing: "sticky" };
}

/** After a success: this key's prefix is now cached at `rowId` (for 1 hour when the client asked for that long). */
export function rememberAffinity(key: string, rowId: string, req: CanonicalRequest, now = Date.now()): void {
  const t = table();
  const long = req.promptCacheRetention === "24h" || hasLongBreakpoint(req);
  t.delete(key);
  t.set(key, { rowId, until: now + (long ? LONG_TTL_MS : SHORT_TTL_MS) });
  if (t.size > MAX_ENTRIES) t.delete(t.keys().next().value!);
}

function hasLongBreakpoint(req: CanonicalRequest): boolean {
  if (req.systemBlocks?.some((b) => b.cacheControl?.ttl === "1h") || req.tools?.some((t) => t.cacheControl?.ttl === "1h")) return true;
  return req.messages.some((m) => m.parts.some((p) => "cacheControl" in p && p.cacheControl?.ttl === "1h"));
}
