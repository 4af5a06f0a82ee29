/**
 * Prompt-cache hints across protocols (docs/billing.md, "Caching across protocols"): reading a
 * client's `cache_control` objects, and writing them for Anthropic upstreams.
 */
import type { CacheControl, CanonicalRequest, TextPart } from "./canonical";
import type { Result } from "../result";
import type { ApiError } from "./errors";
import { bad } from "./protocols/validate";

/** `cache_control` as chat/Responses/Messages clients send it; absent → undefined; anything else → 400 naming it. */
export function readCacheControl(v: unknown, where: string): Result<CacheControl | undefined, ApiError> {
  if (v === undefined || v === null) return { ok: true, value: undefined };
  const o = v as { type?: unknown; ttl?: unknown };
  if (typeof v !== "object" || Array.isArray(v) || o.type !== "ephemeral")
    return { ok: false, error: bad(`${where}.cache_control`, 'must be {"type": "ephemeral"} with an optional ttl of "5m" or "1h"') };
  if (o.ttl === undefined || o.ttl === null) return { ok: true, value: { type: "ephemeral" } };
  if (o.ttl !== "5m" && o.ttl !== "1h") return { ok: false, error: bad(`${where}.cache_control.ttl`, 'must be "5m" or "1h"') };
  return { ok: true, value: { type: "ephemeral", ttl: o.ttl } };
}

/** The wire form for Anthropic (`cache_control` on a block, tool or system block). */
export function anthropicCacheControl(c: CacheControl | undefined): { cache_control?: Record<string, string> } {
  if (!c) return {};
  return { cache_control: c.ttl ? { type: "ephemeral", ttl: c.ttl } : { type: "ephemeral" } };
}

/** Did the client ask for prompt caching anywhere (a breakpoint or a cache key)? */
export function wantsPromptCache(req: CanonicalRequest): boolean {
  if (req.promptCacheKey || req.systemBlocks?.some((b) => b.cacheControl)) return true;
  if (req.tools?.some((t) => t.cacheControl)) return true;
  return req.messages.some((m) => m.parts.some((p) => "cacheControl" in p && p.cacheControl));
}

/** System blocks for a request whose system parts carry breakpoints (undefined when none do). */
export function systemBlocksOf(messages: TextPart[][]): TextPart[] | undefined {
  if (!messages.some((m) => m.some((p) => p.cacheControl))) return undefined;
  const out: TextPart[] = [];
  messages.forEach((parts, i) =>
    parts.forEach((p, j) => out.push({ ...p, text: i > 0 && j === 0 ? `\n\n${p.text}` : p.text })),
  );
  return out;
}
