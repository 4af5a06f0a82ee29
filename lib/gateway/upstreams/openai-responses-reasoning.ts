/**
 * Encrypted reasoning can only be read by the upstream that wrote it. Every `encrypted_content`
 * a Responses upstream sends is shown to the client as `gw1.<tag>.<original>`, the tag naming
 * that upstream; when a client sends the item back (stored or not, e.g. a stateless agent with
 * store: false), it is unwrapped for that upstream and left out for any other, which would
 * refuse the whole request. The tag is a digest of the upstream id: routing data, not a secret.
 */
import { createHash } from "node:crypto";

const PREFIX = "gw1.";

function tagOf(upstreamId: string): string {
  return createHash("sha256").update(`reasoning-origin:${upstreamId}`).digest("base64url").slice(0, 12);
}

function wrapItem(item: unknown, upstreamId: string): void {
  if (!item || typeof item !== "object") return;
  const it = item as Record<string, unknown>;
  if (it.type === "reasoning" && typeof it.encrypted_content === "string" && !it.encrypted_content.startsWith(PREFIX))
    it.encrypted_content = `${PREFIX}${tagOf(upstreamId)}.${it.encrypted_content}`;
}

/** Wraps the reasoning of a response object or of one stream event, in place. */
export function wrapReasoning(json: Record<string, unknown>, upstreamId: string): void {
  wrapItem(json.item, upstreamId);
  const holder = json.response && typeof json.response === "object" ? (json.response as Record<string, unknown>) : json;
  if (Array.isArray(holder.output)) for (const o of holder.output) wrapItem(o, upstreamId);
}

/**
 * An input item as this upstream may receive it: its own reasoning unwrapped, another upstream's
 * left out (null); anything else unchanged.
 */
export function reasoningFor(item: unknown, upstreamId: string): unknown | null {
  if (!item || typeof item !== "object") return item;
  const it = item as Record<string, unknown>;
  if (it.type !== "reasoning" || typeof it.encrypted_content !== "string" || !it.encrypted_content.startsWith(PREFIX)) return item;
  const rest = it.encrypted_content.slice(PREFIX.length);
  const dot = rest.indexOf(".");
  if (dot < 0 || rest.slice(0, dot) !== tagOf(upstreamId)) return null;
  return { ...it, encrypted_content: rest.slice(dot + 1) };
}
