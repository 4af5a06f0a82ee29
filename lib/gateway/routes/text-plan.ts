/**
 * Before any money moves: what each upstream entry of the model would be sent. An entry whose
 * protocol is the client's gets the client's own JSON (passthrough); the others get a converted
 * request, after the conversion policy (hints the target lacks dropped, or refused on a strict
 * model) and after fetching media the target cannot take by URL. An entry that cannot express
 * the request is left out; when none can, the first refusal is the client's 400.
 */
import { applyConversionPolicy } from "../conversion/policy";
import type { CanonicalRequest } from "../canonical";
import { errors, type ApiError } from "../errors";
import type { ModelRoute } from "../model-route";
import { inlineUrls, MEDIA_URLS_PER_REQUEST, mediaUrlCount } from "../upstreams/inline-media";
import { textAdapterFor } from "../upstreams/text-adapters";
import type { Inexpressible, PreparedCall, TextAdapter } from "../upstreams/text-types";
import type { TextCall } from "./text-types";
import type { Err, Ok } from "../../result";

export interface Plan {
  adapter: TextAdapter;
  call: PreparedCall;
  /** Client field names dropped as hints for this route (x-gateway-dropped-params). */
  dropped: string[];
  /** Client field names the gateway enforces on the answer for this route (x-gateway-enforced-params). */
  enforced: string[];
}

/** What each usable entry is sent, in the model's order. */
export interface Planned {
  plans: Map<ModelRoute, Plan>;
  usable: ModelRoute[];
}

/** No entry can serve: the client's 400 (a field no entry can express) or a 502 (no adapter), named for the log. */
export interface Unplannable extends Err<ApiError> {
  reason: "invalid_request" | "upstream_error";
}

export type Plans = Ok<Planned> | Unplannable;

/** Output cap when neither the request nor the model names one; it also bounds the hold. */
export const FALLBACK_MAX_OUTPUT_TOKENS = 4096;

/** The cap both bounds the hold and goes upstream, so the hold is a true worst case. */
export function defaultOutputCap(req: CanonicalRequest, routes: readonly ModelRoute[]): void {
  if (req.maxOutputTokens !== undefined) return;
  const defaults = routes.map((r) => r.defaultMaxTokens ?? 0).filter((n) => n > 0);
  req.maxOutputTokens = defaults.length ? Math.max(...defaults) : FALLBACK_MAX_OUTPUT_TOKENS;
  // Never below the client's own thinking budget (thinking counts toward the cap).
  const budget = req.reasoning?.enabled ? req.reasoning.budgetTokens : undefined;
  if (budget !== undefined && budget >= req.maxOutputTokens) req.maxOutputTokens = budget + FALLBACK_MAX_OUTPUT_TOKENS;
}

/**
 * Whether planning would download media for some entry (a converted one whose target takes no
 * URL, with at most MEDIA_URLS_PER_REQUEST of them): the handler then admits the request first.
 */
export function downloadsMedia(tc: TextCall, req: CanonicalRequest, routes: readonly ModelRoute[]): boolean {
  return routes.some((r) => {
    const adapter = textAdapterFor(r);
    if (!adapter?.inlineMedia || adapter.passthrough?.inbound === tc.protocol.name) return false;
    const n = mediaUrlCount(req, adapter.inlineMedia);
    return n > 0 && n <= MEDIA_URLS_PER_REQUEST;
  });
}

/** Whether some entry may get the client's own JSON (its prompt bound then counts every body byte). */
export const mayPassThrough = (tc: TextCall, routes: readonly ModelRoute[]) => routes.some((r) => textAdapterFor(r)?.passthrough?.inbound === tc.protocol.name);

export async function planRoutes(tc: TextCall, req: CanonicalRequest, routes: readonly ModelRoute[]): Promise<Plans> {
  const { protocol } = tc;
  const plans = new Map<ModelRoute, Plan>();
  let firstRefusal: Inexpressible | null = null;
  for (const route of routes) {
    const adapter = textAdapterFor(route);
    if (!adapter) continue;
    const planned = await planOne(tc, req, route, adapter);
    if (planned.ok) {
      const { call, dropped } = planned.value;
      plans.set(route, { adapter, call, dropped: dropped.map((f) => protocol.fieldName(f)), enforced: (call.enforced ?? []).map((f) => protocol.fieldName(f)) });
    } else firstRefusal ??= planned;
  }
  const usable = routes.filter((r) => plans.has(r));
  if (usable.length) return { ok: true, value: { plans, usable } };
  if (!firstRefusal) return { ok: false, reason: "upstream_error", error: errors.upstream("No upstream that can serve this model is configured.") };
  const field = protocol.fieldName(firstRefusal.error.field);
  return { ok: false, reason: "invalid_request", error: errors.invalidRequest(`${field}: ${firstRefusal.error.message}`, field) };
}

/** One entry's call and the client field names dropped for it. */
type PlannedCall = Ok<{ call: PreparedCall; dropped: string[] }> | Inexpressible;

/** Messages has no image output block: a model priced as one that draws is refused there before any hold (decision 0073). */
const DRAWS_ON_MESSAGES = "this model answers with images, which the Messages API cannot carry; call it on /v1/chat/completions, /v1/responses or generateContent";

async function planOne(tc: TextCall, req: CanonicalRequest, route: ModelRoute, adapter: TextAdapter): Promise<PlannedCall> {
  if (tc.protocol.name === "messages" && route.price.imageOutputPerMTok !== undefined) return { ok: false, error: { field: "model", message: DRAWS_ON_MESSAGES } };
  if (adapter.passthrough?.inbound === tc.protocol.name) {
    const prepared = adapter.prepare(route, req, tc.body as Record<string, unknown>, tc.headers);
    if (!prepared.ok) return prepared;
    return strictOrDropped(route, prepared.value, []);
  }
  if (req.unconvertible?.length) return { ok: false, error: { field: req.unconvertible[0]!, message: "cannot be converted to this model's upstream protocol" } };
  // The conversion policy: hints the target lacks are dropped (or refused on a strict model).
  const policy = applyConversionPolicy(req, { caps: adapter.capabilities, upstreamModel: route.upstreamModel, strict: route.strict });
  if (!policy.ok) return policy;
  const { request, dropped } = policy.value;
  // Media the target cannot take by URL is fetched first (once per request, for every entry).
  const media = adapter.inlineMedia ? await inlineUrls(request, adapter.inlineMedia) : null;
  if (media && !media.ok) return media;
  // The client's headers too: a stateful upstream scopes what it remembers by the client's credential (gemini-interactions-chain.ts).
  const prepared = adapter.prepare(route, media ? media.value : request, undefined, tc.headers);
  if (!prepared.ok) return prepared;
  prepared.value.source = tc.body; // the client's texts, to copy rather than escape again
  return strictOrDropped(route, prepared.value, dropped);
}

/** What the request builder dropped (model or vendor rules) joins the policy's, or is refused on a strict model. */
function strictOrDropped(route: ModelRoute, call: PreparedCall, dropped: string[]): PlannedCall {
  const extra = call.dropped ?? [];
  if (extra.length && route.strict) return { ok: false, error: { field: extra[0]!, message: "cannot be honoured by this model's upstream, and this model refuses hints (strict)" } };
  return { ok: true, value: { call, dropped: [...dropped, ...extra] } };
}
