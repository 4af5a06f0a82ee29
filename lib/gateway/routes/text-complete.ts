/** A non-streamed text answer: failover, settle on the usage, render in the client's protocol. */
import { formatUsd } from "../../billing/money";
import { errorResponse } from "../errors";
import type { GatewayResponse } from "../http";
import { guardAnswer } from "../guardrails/answer";
import { failover } from "../upstreams/failover";
import { completeUsage } from "./text-meter";
import { usageFields, type TextRun } from "./text-run";

export async function completeText(run: TextRun): Promise<GatewayResponse> {
  const { req, tc } = run;
  const r = await failover(run.usable, (route) => run.complete(route), run.retry);
  if (!r.ok) {
    await run.settleFailure(r.error, r.route);
    return errorResponse(r.error, tc.protocol.errorStyle);
  }
  const route = r.route!;
  const plan = run.plan(route);
  run.remember(route);
  const resp = r.value.response;
  run.capture?.complete(resp.content, resp.stopReason);
  const usage = completeUsage(resp.usage, req, () => resp.content.map((p) => (p.type === "tool_call" ? p.arguments : p.type === "image" ? "" : p.text)).join(""));
  // post_response guardrails see the whole answer before the client does; a block still costs what the upstream charged.
  const checked = run.guard?.post.length ? await guardAnswer(run.guard, resp.content, tc.signal) : null;
  if (checked && !checked.ok) {
    await run.settle({ costMicroUsd: run.costOf(usage, route), reason: "guardrail_blocked", status: checked.error.status, errorCode: checked.error.code, route, ...usageFields(resp.usage, usage), ttftMs: run.elapsed() });
    const refused = errorResponse(checked.error, tc.protocol.errorStyle);
    Object.assign(refused.headers, run.servedHeaders(route));
    return refused;
  }
  const settled = await run.settle({ costMicroUsd: run.costOf(usage, route), reason: "completed", status: 200, route, ...usageFields(resp.usage, usage), ttftMs: run.elapsed() }, { early: true });
  let body: unknown;
  // Passthrough keeps the upstream's JSON, unless we had to count usage ourselves (it has none to show).
  if (plan.call.passthrough && r.value.raw && !usage.estimated && !checked?.value.rewritten) {
    plan.adapter.passthrough?.injectCost(r.value.raw, settled.chargedMicroUsd);
    body = r.value.raw;
  } else body = tc.protocol.renderResponse({ ...resp, usage }, { model: req.model, request: req, costMicroUsd: settled.chargedMicroUsd });
  const headers: Record<string, string> = { "content-type": "application/json", "x-gateway-cost-usd": formatUsd(settled.chargedMicroUsd), ...run.servedHeaders(route) };
  if (settled.balanceAfterMicroUsd !== null) headers["x-gateway-balance-usd"] = formatUsd(settled.balanceAfterMicroUsd);
  const json = JSON.stringify(body);
  run.cache?.keep({ stream: false, contentType: headers["content-type"]!, body: json, costMicroUsd: settled.chargedMicroUsd, servedModel: route.modelId });
  return { status: 200, headers, body: json };
}
