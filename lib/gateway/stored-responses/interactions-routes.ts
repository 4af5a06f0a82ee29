/**
 * Google's Interactions API (`/{version}/interactions`, v1beta and v1 — @google/genai sends its
 * client's API version): create, get (and its stream, resumable from `last_event_id`), delete
 * and cancel, served on any upstream. An interaction is a stored Responses API response: the
 * request is translated (interactions-request.ts), runs through `createFromBody` — history,
 * `store`, background and billing exactly as `POST /v1/responses` — and what comes back is
 * rendered as an Interaction (interactions-render.ts). So an interaction id also works as a
 * `previous_response_id`, and the reverse. Another account's id answers 404 in Google's shape.
 */
import { getDb } from "../../../db/client";
import { errorResponse, type ApiError } from "../errors";
import { json, type GatewayResponse } from "../http";
import { SSE_HEADERS } from "../sse";
import type { RouteContext, RouteDef } from "../types";
import { TEXT_BODY_LIMIT } from "../routes/text";
import { cancelBackground, follow } from "./background";
import { createFromBody } from "./create";
import { interactionToResponses } from "./interactions-request";
import { interactionStream, toInteraction } from "./interactions-render";
import { deleteStoredResponse, getStoredResponse } from "./store";

const GOOGLE = { transports: { queryKey: true, googApiKey: true }, errorStyle: "gemini" as const };

function notFound(id: string): ApiError {
  return { status: 404, type: "invalid_request", code: "interaction_not_found", message: `Interaction with id '${id.slice(0, 200)}' not found.`, param: "id" };
}

/** The stored-responses words in an error, in the Interactions API's. */
const interactionWords = (s: string) =>
  s.replaceAll("previous_response_id", "previous_interaction_id").replaceAll("Previous response with id", "Previous interaction with id").replaceAll("Response with id", "Interaction with id");

/**
 * An error from the shared machinery in Google's shape: the text handler renders in the
 * Responses protocol's (OpenAI) shape, the stored-responses checks already in the route's.
 */
function googleError(res: GatewayResponse): GatewayResponse {
  type Body = { error?: { code?: unknown; type?: unknown; message?: unknown; param?: unknown } };
  const body = ((): Body | null => {
    try {
      return typeof res.body === "string" ? (JSON.parse(res.body) as Body) : null;
    } catch {
      return null;
    }
  })();
  const e = body?.error;
  if (!e) return res;
  const { "content-type": _ct, ...headers } = res.headers;
  const err: ApiError = {
    status: res.status,
    type: typeof e.type === "string" ? e.type : "invalid_request",
    code: typeof e.code === "string" ? e.code : "invalid_request",
    message: interactionWords(String(e.message ?? "")),
    param: typeof e.param === "string" ? interactionWords(e.param) : undefined,
    headers,
  };
  if (typeof e.code === "number") {
    // Already Google's shape: keep its reason (ErrorInfo), reword only.
    return { ...res, body: interactionWords(res.body as string) };
  }
  return errorResponse(err, "gemini");
}

function create(version: string) {
  const path = `/${version}/interactions`;
  return async (ctx: RouteContext): Promise<GatewayResponse> => {
    const parsed = await ctx.readJson();
    if (!parsed.ok) return ctx.error(parsed.error);
    const raw = await ctx.readBody();
    if (!raw.ok) return ctx.error(raw.error);
    const call = interactionToResponses(parsed.value);
    if (!call.ok) return ctx.error(call.error);
    const res = await createFromBody(ctx, path, call.value.body, raw.value.length);
    if (res.status !== 200) return googleError(res);
    return asInteraction(res);
  };
}

/** A Responses answer (object or event stream) as an Interaction, its headers (cost, balance) kept. */
function asInteraction(res: GatewayResponse): GatewayResponse {
  if (typeof res.body === "string") return { ...res, body: JSON.stringify(toInteraction(JSON.parse(res.body) as Record<string, unknown>)) };
  if (res.body && typeof res.body === "object" && Symbol.asyncIterator in res.body) return { ...res, body: interactionStream(res.body as AsyncIterable<string | Uint8Array>) };
  return res;
}

async function get(ctx: RouteContext): Promise<GatewayResponse> {
  const id = ctx.params.id!;
  const db = await getDb();
  const r = await getStoredResponse(db, ctx.principal, id);
  if (!r) return ctx.error(notFound(id));
  const q = ctx.req.url.searchParams;
  if (q.get("stream") === "true") {
    if (!r.background) return ctx.error({ status: 400, type: "invalid_request", code: "invalid_request", message: `Interaction '${id}' was not created with background: true; only background interactions can be streamed again.`, param: "stream" });
    const last = q.get("last_event_id");
    const n = last === null || last === "" ? -1 : Number(last);
    if (!Number.isInteger(n) || n < -1) return ctx.error({ status: 400, type: "invalid_request", code: "invalid_request", message: "last_event_id: must be an event_id this interaction's stream sent.", param: "last_event_id" });
    return { status: 200, headers: { ...SSE_HEADERS }, body: interactionStream(follow(db, ctx.principal, id, n)) };
  }
  // The row's status is the truth for background runs (queued → in_progress → …).
  return json(200, toInteraction({ ...r.response, status: r.status }));
}

async function remove(ctx: RouteContext): Promise<GatewayResponse> {
  const id = ctx.params.id!;
  if (!(await deleteStoredResponse(await getDb(), ctx.principal, id))) return ctx.error(notFound(id));
  return json(200, {});
}

async function cancel(ctx: RouteContext): Promise<GatewayResponse> {
  const id = ctx.params.id!;
  const r = await cancelBackground(await getDb(), ctx.principal, id);
  if (!r.ok) return ctx.error(r.error.status === 404 ? notFound(id) : { ...r.error, message: `Interaction '${id.slice(0, 200)}' was not created with background: true; only background interactions can be cancelled.`, param: "id" });
  return json(200, toInteraction(r.value));
}

function routes(version: string): RouteDef[] {
  const p = `/${version}/interactions`;
  return [
    { method: "POST", path: p, bodyLimit: TEXT_BODY_LIMIT, ...GOOGLE, handler: create(version) },
    { method: "GET", path: `${p}/{id}`, ...GOOGLE, handler: get },
    { method: "DELETE", path: `${p}/{id}`, ...GOOGLE, handler: remove },
    { method: "POST", path: `${p}/{id}/cancel`, ...GOOGLE, handler: cancel },
  ];
}

export const interactionRoutes: RouteDef[] = [...routes("v1beta"), ...routes("v1")];
