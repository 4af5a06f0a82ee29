/**
 * The two ways Codex asks for compaction, served by one summarisation call (compaction.ts):
 * the trigger item on POST /v1/responses (create.ts calls `compactConversation`) and
 * POST /v1/responses/compact (`compactHandler`).
 */
import { getDb, type DB } from "../../../db/client";
import { resolveModel } from "../catalog";
import { errors } from "../errors";
import type { GatewayResponse } from "../http";
import { responses } from "../protocols";
import { textCall } from "../routes/text-call";
import type { RouteContext } from "../types";
import { compactAnswer, compactionItem, compactionOutput, emptySummary, expandCompactions, outputText, summaryRequest, triggerAnswer, triggerRequest } from "./compaction";
import { expandInput } from "./history";
import type { Item } from "./store";

/** Headers of the summarisation's answer worth keeping (cost, balance, served model, dropped hints). */
function carriedHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (k.startsWith("x-gateway-")) out[k] = v;
  return out;
}

/**
 * Compacts `body.input` (our earlier compaction items already expanded) with one call to the
 * serving model. When every entry is an OpenAI Responses upstream, which compacts by itself, a
 * trigger is left to go as sent (null) and `/compact` becomes a trigger request to it.
 */
export async function compactConversation(db: DB, ctx: RouteContext, path: string, body: Record<string, unknown>, mode: "trigger" | "endpoint"): Promise<GatewayResponse | null> {
  const resolved = await resolveModel(ctx.principal, body.model, ["text"]);
  if (!resolved.ok) return ctx.error(resolved.error);
  const upstreamCompacts = resolved.value.routes.length > 0 && resolved.value.routes.every((r) => r.upstream.protocol === "openai-responses");
  if (mode === "trigger" && upstreamCompacts) return null;

  let input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : body.input;
  if (!Array.isArray(input)) return ctx.error(errors.invalidRequest("input: must be a string or an array of input items.", "input"));
  const previousId = body.previous_response_id;
  if (typeof previousId === "string" && previousId) {
    const r = await expandInput(db, ctx.principal, input as Item[], previousId);
    if (!r.ok) return ctx.error(r.error);
    input = r.value.upstreamInput;
  }
  const request = upstreamCompacts ? triggerRequest(body, input as Item[]) : summaryRequest(body, input as Item[]);
  const res = await textCall(ctx, db, path, { protocol: responses, body: request, bodyBytes: Buffer.byteLength(JSON.stringify(request)), requestBody: () => JSON.stringify(request) });
  if (res.status !== 200 || typeof res.body !== "string") return res;
  const summarised = JSON.parse(res.body) as Record<string, unknown>;
  const headers = carriedHeaders(res.headers);
  if (upstreamCompacts) {
    const own = compactionOutput(summarised);
    return own ? compactAnswer(summarised, input as Item[], own, headers) : ctx.error(errors.upstream("The upstream answered the compaction request without exactly one compaction item."));
  }
  const summary = outputText(summarised);
  // Charged already (the model did answer); the client's retry asks again.
  if (!summary) return ctx.error(emptySummary());
  const item = compactionItem(ctx.principal.accountId, summary);
  return mode === "trigger" ? triggerAnswer(summarised, item, body.stream === true, headers) : compactAnswer(summarised, input as Item[], item, headers);
}

/** POST /v1/responses/compact: `{model, input, instructions, …}` → `{object: "response.compaction", output}`. */
export async function compactHandler(ctx: RouteContext): Promise<GatewayResponse> {
  const parsed = await ctx.readJson();
  if (!parsed.ok) return ctx.error(parsed.error);
  const body = parsed.value as Record<string, unknown>;
  if (!body || typeof body !== "object" || Array.isArray(body)) return ctx.error(errors.invalidRequest("Request body must be a JSON object."));
  const expanded = expandCompactions(body.input, ctx.principal.accountId);
  if (!expanded.ok) return ctx.error(expanded.error);
  const r = await compactConversation(await getDb(), ctx, "/v1/responses/compact", Object.assign({}, body, { input: expanded.value }), "endpoint");
  return r!; // "endpoint" always answers
}
