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

export interface Plan {
  adapter: TextAdapter;
  call: PreparedCall;
  /** Client field names dropped as hints for this route (x-gateway-dropped-params). */
  dropped: string[];
  /** Client field names the gateway enforces on the answer for this route (x-gateway-enforced-params). */
  enforced: string[];
}

export type Plans = { ok: true; plans: Map<ModelRoute, Plan>; usable: ModelRoute[] } | { ok: false; error: ApiError; reason: "invalid_request" | "upstream_error" };

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
    if (planned.ok)
      plans.set(route, { adapter, call: planned.call, dropped: planned.dropped.map((f) => protocol.fieldName(f)), enforced: (planned.call.enforced ?? []).map((f) => protocol.fieldName(f)) });
    else firstRefusal ??= planned;
  }
  const usable = routes.filter((r) => plans.has(r));
  if (usable.length) return { ok: true, plans, usable };
  if (!firstRefusal) return { ok: false, reason: "upstream_error", error: errors.upstream("No upstream that can serve this model is configured.") };
  const field = protocol.fieldName(firstRefusal.field);
  return { ok: false, reason: "invalid_request", error: errors.invalidRequest(`${field}: ${firstRefusal.message}`, field) };
}

type Planned = { ok: true; call: PreparedCall; dropped: string[] } | Inexpressible;

async function planOne(tc: TextCall, req: CanonicalRequest, route: ModelRoute, adapter: TextAdapter): Promise<Planned> {
  if (adapter.passthrough?.inbound === tc.protocol.name) {
    const prepared = adapter.prepare(route, req, tc.body as Record<string, unknown>, tc.headers);
    if (!prepared.ok) return prepared;
    return strictOrDropped(route, prepared.value, []);
  }
  if (req.unconvertible?.length) return { ok: false, field: req.unconvertible[0]!, message: "cannot be converted to this model's upstream protocol" };
  // The conversion policy: hints the target lacks are dropped (or refused on a strict model).
  const policy = applyConversionPolicy(req, { caps: adapter.capabilities, upstreamModel: route.upstreamModel, strict: route.strict });
  if (!policy.ok) return policy;
  // Media the target cannot take by URL is fetched first (once per request, for every entry).
  const media = adapter.inlineMedia ? await inlineUrls(policy.request, adapter.inlineMedia) : null;
  if (media && !media.ok) return media;
  const prepared = adapter.prepare(route, media ? media.value : policy.request);
  if (!prepared.ok) return prepared;
  prepared.value.source = tc.body; // the client's texts, to copy rather than escape again
  return strictOrDropped(route, prepared.value, policy.dropped);
}

/** What the request builder dropped (model or vendor rules) joins the policy's, or is refused on a strict model. */
function strictOrDropped(route: ModelRoute, call: PreparedCall, dropped: string[]): Planned {
  const extra = call.dropped ?? [];
  if (extra.length && route.strict) return { ok: false, field: extra[0]!, message: "cannot be honoured by this model's upstream, and this model refuses hints (strict)" };
  return { ok: true, call, dropped: [...dropped, ...extra] };
}
