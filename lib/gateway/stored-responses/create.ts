/**
 * POST /v1/responses with state: resolves `previous_response_id`, `item_reference` and our
 * compaction items into a stateless request for the text handler (run-response.ts), answers a
 * compaction trigger (compact.ts), or hands it to background.ts. The
 * response object says `store` and `previous_response_id` truthfully; stored ones are written
 * after the reply (store.ts says why that is safe).
 */
import { getDb } from "../../../db/client";
import { isModelId, modelIdError } from "../catalog";
import { errors } from "../errors";
import type { GatewayResponse } from "../http";
import type { RouteContext } from "../types";
import { startBackground } from "./background";
import { compactConversation } from "./compact";
import { expandCompactions, isCompactionTrigger } from "./compaction";
import { expandInput, normalizeItem, type Expanded } from "./history";
import { runResponse } from "./run-response";
import type { Item } from "./store";

export async function createResponse(ctx: RouteContext, path: string): Promise<GatewayResponse> {
  const parsed = await ctx.readJson();
  if (!parsed.ok) return ctx.error(parsed.error);
  const raw = await ctx.readBody();
  if (!raw.ok) return ctx.error(raw.error);
  const body = parsed.value as Record<string, unknown>;
  if (!body || typeof body !== "object" || Array.isArray(body)) return ctx.error(errors.invalidRequest("Request body must be a JSON object."));
  return createFromBody(ctx, path, body, raw.value.length);
}

/** The same, for a body already read (Google's Interactions API translates its own into this one). */
export async function createFromBody(ctx: RouteContext, path: string, parsedBody: Record<string, unknown>, rawBytes: number): Promise<GatewayResponse> {
  let body = parsedBody;
  // An over-long id is refused before any lookup (a previous response, a stored row); the text
  // handler refuses the other bad models with their log row.
  if (typeof body.model === "string" && !isModelId(body.model)) return ctx.error(modelIdError(body.model));
  const db = await getDb();

  // Our compaction items become the summary they carry; a trigger is answered with a new one.
  const opened = expandCompactions(body.input, ctx.principal.accountId);
  if (!opened.ok) return ctx.error(opened.error);
  if (opened.value !== body.input) body = Object.assign({}, body, { input: opened.value });
  if (isCompactionTrigger(body.input)) {
    const compacted = await compactConversation(db, ctx, path, body, "trigger");
    if (compacted) return compacted;
  }

  const prevRaw = body.previous_response_id;
  if (prevRaw !== undefined && prevRaw !== null && (typeof prevRaw !== "string" || !prevRaw))
    return ctx.error(errors.invalidRequest("previous_response_id: must be a response id string.", "previous_response_id"));
  const previousId = typeof prevRaw === "string" ? prevRaw : null;
  if (previousId !== null && body.conversation != null)
    return ctx.error(errors.invalidRequest("previous_response_id and conversation cannot be used together.", "previous_response_id"));
  const store = body.store !== false && ctx.principal.storeResponses !== false;

  // Nothing stateful asked and nothing to store: the plain stateless path, untouched.
  const input = body.input;
  const hasRefs = Array.isArray(input) && input.some((it) => it && typeof it === "object" && (it as Item).type === "item_reference");
  let expanded: Expanded | null = null;
  let bodyBytes = rawBytes;
  if ((typeof input === "string" || Array.isArray(input)) && (previousId !== null || hasRefs || store)) {
    if (previousId !== null || hasRefs) {
      const r = await expandInput(db, ctx.principal, input as string | Item[], previousId);
      if (!r.ok) return ctx.error(r.error);
      expanded = r.value;
      const { previous_response_id: _drop, ...rest } = body;
      body = { ...rest, input: expanded.upstreamInput };
      bodyBytes = Buffer.byteLength(JSON.stringify(body));
    } else {
      const own = (typeof input === "string" ? [{ type: "message", role: "user", content: input }] : (input as Item[])).map((it) =>
        it && typeof it === "object" && !Array.isArray(it) ? normalizeItem(it) : it,
      );
      expanded = { upstreamInput: [], storedInput: own, ownItemIds: own.map((i) => i?.id).filter((i): i is string => typeof i === "string"), replayed: 0 };
    }
  }

  if (body.background === true) {
    if (!store) return ctx.error(errors.invalidRequest("background: a background response must be stored (store: true, and storing on for the account).", "background"));
    if (!expanded) return ctx.error(errors.invalidRequest("input: must be a string or an array of input items.", "input"));
    const { background: _bg, ...rest } = body;
    return startBackground(db, ctx, path, { body: rest, bodyBytes, expanded, previousId, replayedCounted: previousId !== null || hasRefs });
  }
  if (body.background !== undefined) {
    const { background: _bg, ...rest } = body;
    body = rest; // false or null: the plain path
  }
  return runResponse({ db, ctx, path, body, bodyBytes, expanded, previousId, store, replayedCounted: previousId !== null || hasRefs, signal: ctx.req.signal });
}

