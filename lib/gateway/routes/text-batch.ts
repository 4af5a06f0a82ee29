/**
 * A batch line bound for a vendor's own batch API (decision 0070): the request one catalog entry
 * would be sent for it, built by the text path's own steps (parse, the entry's output cap, the
 * plan: passthrough or conversion), so the vendor batch carries exactly what a single request
 * would have. Its answer comes back through textCall's `answered`, planned the same way.
 */
import type { Result } from "../../result";
import { resolveModel } from "../catalog";
import { guardrailsFor } from "../guardrails/registry";
import type { ModelRoute } from "../model-route";
import type { InboundProtocol, ParseOptions } from "../protocols/types";
import { toJson } from "../raw-json";
import type { Principal } from "../types";
import { defaultOutputCap, downloadsMedia, planRoutes } from "./text-plan";
import type { TextCall } from "./text-types";

export interface LineRequest {
  protocol: InboundProtocol;
  parseOpts?: ParseOptions;
  body: Record<string, unknown>;
  bodyBytes: number;
}

/**
 * The wire body of the line for entry `rowId`, or why the gateway must run the line itself: its
 * organisation has guardrails (they act on the request before it leaves), it needs media
 * downloaded, or the entry cannot express it (the gateway's run then answers the client's 400).
 */
export async function vendorBatchBody(principal: Principal, rowId: string, line: LineRequest): Promise<Result<{ route: ModelRoute; body: string }, string>> {
  if (guardrailsFor(principal.accountId, principal.keyId)) return { ok: false, error: "guardrails apply" };
  const parsed = line.protocol.parseRequest(line.body, line.parseOpts);
  if (!parsed.ok) return { ok: false, error: parsed.error.message };
  const req = parsed.value;
  const resolved = await resolveModel(principal, req.model, ["text"], {});
  const route = resolved.ok ? resolved.value.routes.find((r) => r.rowId === rowId) : undefined;
  if (!route) return { ok: false, error: "the entry no longer serves this model" };
  // The answer is planned again against this entry alone (textCall's `answered`): the same cap both times.
  defaultOutputCap(req, [route]);
  const tc: TextCall = { protocol: line.protocol, body: line.body, bodyBytes: line.bodyBytes, parseOpts: line.parseOpts, signal: new AbortController().signal, startedAt: performance.now(), headers: {} };
  if (downloadsMedia(tc, req, [route])) return { ok: false, error: "media to download" };
  const planned = await planRoutes(tc, req, [route]);
  const plan = planned.ok ? planned.value.plans.get(route) : undefined;
  if (!plan) return { ok: false, error: planned.ok ? "not planned" : planned.error.message };
  return { ok: true, value: { route, body: toJson(plan.call.body, plan.call.source).toString("utf8") } };
}
