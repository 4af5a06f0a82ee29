/**
 * Compaction of a Responses conversation on any upstream (decision 0047, docs/responses.md).
 * Codex asks for it with `{"type":"compaction_trigger"}` as the last input item of
 * POST /v1/responses, or with POST /v1/responses/compact, and needs exactly one `compaction`
 * output item back. A model served only by OpenAI Responses upstreams gets the trigger passed
 * through (`/compact` as a trigger request); otherwise the gateway makes the item: one summarisation call to the serving model
 * (billed as any text call), the summary sealed with the stored-responses key and the account's
 * id into `encrypted_content`. When the item comes back as input it is opened and becomes a user
 * message carrying the summary, so every upstream reads it; another account's item is refused.
 * Nothing is stored: the item carries its own state, so `store: false` (Codex's) works too.
 */
import { decryptSecret, encryptSecret } from "../../crypto";
import { randomBase62 } from "../../ids";
import { errors, type ApiError } from "../errors";
import { json, type GatewayResponse } from "../http";
import { nowSeconds, protocolId } from "../protocols/ids";
import { SSE_HEADERS, sseEvent } from "../sse";
import type { Item } from "./store";
import type { Result } from "../../result";

/** Marks an item the gateway made; anything else in `encrypted_content` is an upstream's own. */
const SEALED_PREFIX = "gwc1.";

const INSTRUCTION =
  "Compact the conversation above so that the work can continue in a new context from your summary alone. " +
  "Write a handoff summary for whoever continues: the user's goal, requirements and preferences; what has been done and decided so far " +
  "(files, commands, results, errors met); the current state; and the next steps. Keep names, paths, identifiers and numbers exact. " +
  "Answer with the summary only, no preamble.";

const SUMMARY_HEADER = "Summary of the earlier part of this conversation (compacted):\n\n";

export function isCompactionTrigger(input: unknown): boolean {
  return Array.isArray(input) && (input.at(-1) as Item | undefined)?.type === "compaction_trigger";
}

export function sealSummary(accountId: string, summary: string): string {
  return SEALED_PREFIX + encryptSecret(JSON.stringify({ a: accountId, s: summary }));
}

/** The summary in one of our items; "foreign": an upstream's item, "unreadable": another account's or damaged. */
function openSummary(accountId: string, sealed: string): Result<string, "foreign" | "unreadable"> {
  if (!sealed.startsWith(SEALED_PREFIX)) return { ok: false, error: "foreign" };
  try {
    const v = JSON.parse(decryptSecret(sealed.slice(SEALED_PREFIX.length))) as { a?: unknown; s?: unknown };
    if (v.a === accountId && typeof v.s === "string") return { ok: true, value: v.s };
  } catch {
    // tampered or sealed under another key: refused below like another account's
  }
  return { ok: false, error: "unreadable" };
}

/**
 * The input with each of our compaction items replaced by the summary it carries, as a user
 * message. An upstream's own item (OpenAI's) is left for a Responses upstream to read.
 */
export function expandCompactions(input: unknown, accountId: string): Result<unknown, ApiError> {
  if (!Array.isArray(input) || !input.some((it) => (it as Item | null)?.type === "compaction")) return { ok: true, value: input };
  const out: unknown[] = [];
  for (let i = 0; i < input.length; i++) {
    const it = input[i] as Item | null;
    const sealed = it?.type === "compaction" ? it.encrypted_content : undefined;
    if (typeof sealed !== "string") {
      out.push(it);
      continue;
    }
    const opened = openSummary(accountId, sealed);
    if (!opened.ok && opened.error === "foreign") out.push(it);
    else if (!opened.ok) return { ok: false, error: errors.invalidRequest(`input[${i}].encrypted_content: not a compaction item this key's account can read.`, `input[${i}].encrypted_content`) };
    else out.push({ type: "message", role: "user", content: [{ type: "input_text", text: SUMMARY_HEADER + opened.value }] });
  }
  return { ok: true, value: out };
}

/**
 * The summarisation request: the conversation (trigger removed), then the instruction. Tools
 * stay declared (Anthropic refuses tool calls in a history without them) but may not be called.
 */
export function summaryRequest(body: Record<string, unknown>, input: Item[]): Record<string, unknown> {
  const conversation = input.filter((it) => it?.type !== "compaction_trigger");
  const out: Record<string, unknown> = Object.assign({}, body, {
    input: [...conversation, { type: "message", role: "user", content: [{ type: "input_text", text: INSTRUCTION }] }],
    stream: false,
    store: false,
  });
  delete out.previous_response_id;
  delete out.background;
  delete out.include; // encrypted reasoning asked for the session is no use to a summary
  if (Array.isArray(body.tools) && body.tools.length) out.tool_choice = "none";
  return out;
}

/**
 * `/v1/responses/compact` for a model whose upstreams compact by themselves: the same history
 * with the trigger last, as Codex would send it, so the upstream's own item comes back.
 */
export function triggerRequest(body: Record<string, unknown>, input: Item[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.assign({}, body, { input: [...input, { type: "compaction_trigger" }], stream: false, store: false });
  delete out.previous_response_id;
  delete out.background;
  return out;
}

/** The one compaction item of a Responses object, if there is exactly one. */
export function compactionOutput(response: Record<string, unknown>): Item | null {
  const items = ((response.output as Item[] | undefined) ?? []).filter((i) => i?.type === "compaction");
  return items.length === 1 ? items[0]! : null;
}

/** The text of a Responses object's message output. */
export function outputText(response: Record<string, unknown>): string {
  let text = "";
  for (const item of (response.output as Item[] | undefined) ?? [])
    if (item?.type === "message" && Array.isArray(item.content))
      for (const p of item.content as { type?: string; text?: unknown }[]) if (p?.type === "output_text" && typeof p.text === "string") text += p.text;
  return text.trim();
}

export function compactionItem(accountId: string, summary: string): Item {
  return { id: `cmp_${randomBase62(24)}`, type: "compaction", encrypted_content: sealSummary(accountId, summary) };
}

/**
 * The summarisation's response object with the compaction item as its only output; as JSON or
 * as the events a stream of it would carry (Codex reads `response.output_item.done` and needs
 * `response.completed`).
 */
export function triggerAnswer(summarised: Record<string, unknown>, item: Item, stream: boolean, headers: Record<string, string>): GatewayResponse {
  const response: Record<string, unknown> = Object.assign({}, summarised, { id: protocolId.response(), status: "completed", output: [item], store: false, previous_response_id: null });
  delete response.output_text;
  if (!stream) return json(200, response, headers);
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => sseEvent(type, Object.assign({ type, sequence_number: seq++ }, body));
  const open = Object.assign({}, response, { status: "in_progress", output: [], usage: null });
  const events = [
    ev("response.created", { response: open }),
    ev("response.in_progress", { response: open }),
    ev("response.output_item.added", { output_index: 0, item }),
    ev("response.output_item.done", { output_index: 0, item }),
    ev("response.completed", { response }),
  ];
  return { status: 200, headers: Object.assign({}, SSE_HEADERS, headers), body: events.join("") };
}

/**
 * POST /v1/responses/compact's answer: the compacted window — the user's own messages as sent,
 * then the compaction item standing for everything else.
 * @see https://platform.openai.com/docs/api-reference/responses/compact
 */
export function compactAnswer(summarised: Record<string, unknown>, input: Item[], item: Item, headers: Record<string, string>): GatewayResponse {
  const kept = input.filter((it) => it?.type === "message" && it.role === "user" && !isSummary(it));
  return json(200, { id: protocolId.response(), object: "response.compaction", created_at: nowSeconds(), output: [...kept, item], usage: summarised.usage ?? null }, headers);
}

/** A summary message we expanded from an earlier compaction: the new item replaces it. */
function isSummary(it: Item): boolean {
  const c = it.content as { text?: unknown }[] | undefined;
  return Array.isArray(c) && typeof c[0]?.text === "string" && c[0].text.startsWith(SUMMARY_HEADER);
}

export function emptySummary(): ApiError {
  return errors.upstream("The model answered the compaction request without a summary.");
}
