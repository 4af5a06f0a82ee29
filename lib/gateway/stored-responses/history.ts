/**
 * Turns a stateful Responses request into a stateless one: `previous_response_id` becomes the
 * stored context (its input items, then its output items) in front of the new input, and each
 * `item_reference` becomes the stored item it names. `instructions` are not carried over (as
 * in OpenAI's API: they are not input items). Replayed reasoning items remember the upstream
 * that produced them (replayOrigin) so their encrypted content goes back only there.
 */
import { env } from "../../env";
import { randomBase62 } from "../../ids";
import type { DB } from "../../../db/client";
import { errors, type ApiError } from "../errors";
import type { Viewer } from "../../keys/visibility";
import { findStoredItems, getStoredResponse, type Item } from "./store";
import { withOrigin } from "../upstreams/replay-origin";
import type { Result } from "../../result";

/** Replayed history larger than this (JSON bytes) is refused: the text routes' body limit. */
export const maxHistoryBytes = () => env().TEXT_BODY_LIMIT_MB * 1024 * 1024;

const INPUT_ROLES = new Set(["user", "system", "developer"]);

/** How a stored item goes back upstream: ids we gave to the caller's own items are ours, not the upstream's. */
function forReplay(item: Item, upstreamId: string | null): Item {
  const out = withOrigin(item, upstreamId);
  if ((item.type === "message" && INPUT_ROLES.has(item.role as string)) || item.type === "function_call_output") {
    delete out.id;
    delete out.status;
  }
  return out;
}

function idFor(item: Item): string {
  const t = item.type;
  const prefix = t === "message" ? "msg" : t === "function_call_output" ? "fco" : t === "function_call" ? "fc" : "item";
  return `${prefix}_${randomBase62(24)}`;
}

/** An input item as stored and listed: typed, with an id, string content as a text part. */
export function normalizeItem(raw: Item): Item {
  const item: Item = Object.assign({}, raw); // it may gain keys: not a spread (decision 0033)
  if (item.type === undefined && typeof item.role === "string") item.type = "message";
  if (item.type === "message") {
    if (typeof item.content === "string")
      item.content = [{ type: item.role === "assistant" ? "output_text" : "input_text", text: item.content, ...(item.role === "assistant" ? { annotations: [] } : {}) }];
    item.status ??= "completed";
  }
  if (typeof item.id !== "string") item.id = idFor(item);
  return item;
}

export interface Expanded {
  /** The input to send on (history, then the caller's items with references resolved). */
  upstreamInput: Item[];
  /** The same items as stored for input_items (with ids). */
  storedInput: Item[];
  /** Ids of the caller's own items (not of replayed ones): what an item_reference may name later. */
  ownItemIds: string[];
  replayed: number;
}

export type ExpandResult = Result<Expanded, ApiError>;

function notFoundPrevious(id: string): ApiError {
  return { status: 404, type: "invalid_request", code: "previous_response_not_found", message: `Previous response with id '${id}' not found.`, param: "previous_response_id" };
}

/**
 * Expands `input` (string or items) with the stored state the request names. The caller has
 * checked that `input` is a string or an array.
 */
export async function expandInput(db: DB, who: Viewer, input: string | Item[], previousId: string | null): Promise<ExpandResult> {
  const items: Item[] = typeof input === "string" ? [{ type: "message", role: "user", content: input }] : input;
  const upstreamInput: Item[] = [];
  const storedInput: Item[] = [];
  const ownItemIds: string[] = [];
  let replayed = 0;

  if (previousId !== null) {
    const prev = await getStoredResponse(db, who, previousId);
    if (!prev) return { ok: false, error: notFoundPrevious(previousId) };
    if (prev.status === "queued" || prev.status === "in_progress")
      return {
        ok: false,
        error: { status: 400, type: "invalid_request", code: "previous_response_in_progress", message: `Previous response '${previousId}' is still ${prev.status.replace("_", " ")}; wait until it completes (GET /v1/responses/${previousId}).`, param: "previous_response_id" },
      };
    const history = [...prev.input, ...((prev.response.output as Item[] | undefined) ?? [])];
    for (const it of history) {
      upstreamInput.push(forReplay(it, prev.upstreamId));
      storedInput.push(it);
    }
    replayed += history.length;
  }

  const refs = items.map((it, i) => ({ it, i })).filter(({ it }) => it && typeof it === "object" && it.type === "item_reference");
  let found = new Map<string, { item: Item; response: { upstreamId: string | null } }>();
  if (refs.length) {
    for (const { it, i } of refs)
      if (typeof it.id !== "string" || !it.id) return { ok: false, error: errors.invalidRequest(`input[${i}].id: an item_reference needs the id of a stored item.`, `input[${i}].id`) };
    const ids = [...new Set(refs.map(({ it }) => it.id as string))];
    const responseRef = ids.find((id) => id.startsWith("resp_"));
    if (responseRef) {
      const i = refs.find(({ it }) => it.id === responseRef)!.i;
      return { ok: false, error: errors.invalidRequest(`input[${i}]: '${responseRef}' is a response, not an item; continue a response with previous_response_id.`, `input[${i}].id`) };
    }
    found = await findStoredItems(db, who, ids);
  }

  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (it && typeof it === "object" && it.type === "item_reference") {
      const hit = found.get(it.id as string);
      if (!hit)
        return { ok: false, error: { status: 404, type: "invalid_request", code: "item_not_found", message: `Item with id '${it.id as string}' not found.`, param: `input[${i}].id` } };
      upstreamInput.push(forReplay(hit.item, hit.response.upstreamId));
      storedInput.push(hit.item);
      replayed++;
      continue;
    }
    upstreamInput.push(it);
    const norm = it && typeof it === "object" && !Array.isArray(it) ? normalizeItem(it) : it;
    storedInput.push(norm);
    if (typeof norm?.id === "string") ownItemIds.push(norm.id);
  }

  if (replayed > 0 && Buffer.byteLength(JSON.stringify(upstreamInput)) > maxHistoryBytes())
    return {
      ok: false,
      error: {
        status: 400,
        type: "invalid_request",
        code: "history_too_large",
        message: `The stored conversation is larger than ${maxHistoryBytes()} bytes; start a new one or send a shorter input.`,
        param: previousId !== null ? "previous_response_id" : "input",
      },
    };
  return { ok: true, value: { upstreamInput, storedInput, ownItemIds, replayed } };
}
