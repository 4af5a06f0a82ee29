/**
 * The stored-response routes (POST /v1/responses is create.ts, mounted with the text routes): retrieve, delete, and the input items list
 * paginated as OpenAI's (`after`, `before`, `limit` 1–100 default 20, `order` asc|desc default
 * desc). Another account's id, or (for a member) another member's, answers exactly as an unknown
 * one: 404 (lib/keys/visibility.ts).
 */
import { getDb } from "../../../db/client";
import { errors, type ApiError } from "../errors";
import { json } from "../http";
import type { RouteContext, RouteDef } from "../types";
import { SSE_HEADERS } from "../sse";
import { cancelBackground, follow } from "./background";
import { deleteStoredResponse, getStoredResponse, type Item } from "./store";
import type { Result } from "../../result";

function notFound(id: string): ApiError {
  return { status: 404, type: "invalid_request", code: "response_not_found", message: `Response with id '${id.slice(0, 200)}' not found.`, param: "response_id" };
}

async function retrieve(ctx: RouteContext) {
  const id = ctx.params.id!;
  const db = await getDb();
  const r = await getStoredResponse(db, ctx.principal, id);
  if (!r) return ctx.error(notFound(id));
  const q = ctx.req.url.searchParams;
  if (q.get("stream") === "true") {
    if (!r.background) return ctx.error(errors.invalidRequest(`Response '${id}' was not created in background mode; only background responses can be streamed again.`, "stream"));
    const after = q.get("starting_after");
    const n = after === null ? -1 : Number(after);
    if (!Number.isInteger(n) || n < -1) return ctx.error(errors.invalidRequest("starting_after: must be a sequence number.", "starting_after"));
    return { status: 200, headers: { ...SSE_HEADERS }, body: follow(db, ctx.principal, id, n) };
  }
  // The row's status is the truth for background runs (queued → in_progress → …).
  return json(200, { ...r.response, status: r.status });
}

async function cancel(ctx: RouteContext) {
  const r = await cancelBackground(await getDb(), ctx.principal, ctx.params.id!);
  if (!r.ok) return ctx.error(r.error);
  return json(200, r.value);
}

async function remove(ctx: RouteContext) {
  const id = ctx.params.id!;
  const gone = await deleteStoredResponse(await getDb(), ctx.principal, id);
  if (!gone) return ctx.error(notFound(id));
  return json(200, { id, object: "response", deleted: true });
}

export function pageItems(items: Item[], q: URLSearchParams): Result<Record<string, unknown>, ApiError> {
  const order = q.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") return { ok: false, error: errors.invalidRequest("order: must be asc or desc.", "order") };
  const limitRaw = q.get("limit");
  const limit = limitRaw === null ? 20 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { ok: false, error: errors.invalidRequest("limit: must be an integer from 1 to 100.", "limit") };
  const list = order === "asc" ? items : [...items].reverse();
  let from = 0;
  let to = list.length;
  for (const [name, cursor] of [["after", q.get("after")], ["before", q.get("before")]] as const) {
    if (cursor === null) continue;
    const at = list.findIndex((i) => i.id === cursor);
    if (at < 0) return { ok: false, error: errors.invalidRequest(`${name}: no input item with id '${cursor.slice(0, 200)}' in this response.`, name) };
    if (name === "after") from = Math.max(from, at + 1);
    else to = Math.min(to, at);
  }
  // `before` alone pages backwards: the items just before the cursor.
  const window = list.slice(from, to);
  const page = q.get("before") !== null && q.get("after") === null ? window.slice(Math.max(0, window.length - limit)) : window.slice(0, limit);
  const hasMore = window.length > page.length;
  return {
    ok: true,
    value: {
      object: "list",
      data: page,
      first_id: (page[0]?.id as string | undefined) ?? null,
      last_id: (page[page.length - 1]?.id as string | undefined) ?? null,
      has_more: hasMore,
    },
  };
}

async function inputItems(ctx: RouteContext) {
  const id = ctx.params.id!;
  const r = await getStoredResponse(await getDb(), ctx.principal, id);
  if (!r) return ctx.error(notFound(id));
  const page = pageItems(r.input, ctx.req.url.searchParams);
  if (!page.ok) return ctx.error(page.error);
  return json(200, page.value);
}

/**
 * `GET /v1/responses` is the Responses WebSocket transport: the custom server upgrades it
 * (lib/runtime/responses-socket.ts). What reaches here cannot be upgraded — a plain GET, or the
 * Next mount — and a 426 makes Codex fall back to HTTP at once (any other answer spends its
 * retry budget first). Answered before the key is checked: nothing is revealed.
 */
async function webSocketNotServed(ctx: RouteContext) {
  return ctx.error({
    status: 426,
    type: "invalid_request",
    code: "websocket_upgrade_required",
    message: "GET /v1/responses is the WebSocket transport (Upgrade: websocket, served by `npm start`); over HTTP send POST /v1/responses.",
    headers: { upgrade: "websocket" },
  });
}

export const storedResponseRoutes: RouteDef[] = [
  { method: "GET", path: "/v1/responses", auth: false, handler: webSocketNotServed },
  { method: "GET", path: "/v1/responses/{id}", handler: retrieve },
  { method: "DELETE", path: "/v1/responses/{id}", handler: remove },
  { method: "POST", path: "/v1/responses/{id}/cancel", handler: cancel },
  { method: "GET", path: "/v1/responses/{id}/input_items", handler: inputItems },
];
