/** A non-streamed text answer: failover, settle on the usage, render in the client's protocol. */
import { formatUsd } from "../../billing/money";
import { errorResponse } from "../errors";
import type { GatewayResponse } from "../http";
import { failover } from "../upstreams/failover";
import { completeUsage } from "./text-meter";
import { usageFields, type TextRun } from "./text-run";

export async function completeText(run: TextRun): Promise<GatewayResponse> {
  const { req, tc } = run;
  const r = await failover(run.usable, (route) => run.plan(route).adapter.complete(run.plan(route).call, { signal: tc.signal, timeoutMs: run.timeoutOf(route) }), run.retry);
  if (!r.ok) {
    await run.settleFailure(r.error, r.route);
    return errorResponse(r.error, tc.protocol.errorStyle);
  }
  const route = r.route!;
  const plan = run.plan(route);
  run.remember(route);
  const resp = r.value.response;
  const usage = completeUsage(resp.usage, req, () => resp.content.map((p) => (p.type === "tool_call" ? p.arguments : p.text)).join(""));
  const settled = await run.settle({ costMicroUsd: run.costOf(usage, route), reason: "completed", status: 200, route, ...usageFields(resp.usage, usage), ttftMs: run.elapsed() }, { early: true });
  let body: unknown;
  // Passthrough keeps the upstream's JSON, unless we had to count usage ourselves (it has none to show).
  if (plan.call.passthrough && r.value.raw && !usage.estimated) {
    plan.adapter.passthrough?.injectCost(r.value.raw, settled.chargedMicroUsd);
    body = r.value.raw;
  } else body = tc.protocol.renderResponse({ ...resp, usage }, { model: req.model, request: req, costMicroUsd: settled.chargedMicroUsd });
  const headers: Record<string, string> = { "content-type": "application/json", "x-gateway-cost-usd": formatUsd(settled.chargedMicroUsd), ...run.servedHeaders(route) };
  if (settled.balanceAfterMicroUsd !== null) headers["x-gateway-balance-usd"] = formatUsd(settled.balanceAfterMicroUsd);
  return { status: 200, headers, body: JSON.stringify(body) };
}
