/**
 * Same protocol in and out: the upstream's own wire events go to the client as they came (the
 * model id already rewritten by the decoder), with the charge put into the event that carries
 * the final usage. What a protocol needs beyond that (chat completions' `[DONE]` and its usage
 * chunk) lives in its adapter, not in the generic handler.
 */
import { sseData, sseEvent } from "../sse";
import type { PassthroughCodec, UpstreamChunk } from "./text-types";

/** The usual passthrough: each event re-framed as it came, the cost in the final usage. */
export function sameProtocol(
  inbound: string,
  injectCost: PassthroughCodec["injectCost"],
  renderEvent: PassthroughCodec["renderEvent"] = (chunk, _call, cost) => framed(chunk, cost, injectCost),
): PassthroughCodec {
  return { inbound, injectCost, renderEvent };
}

export function framed(chunk: UpstreamChunk, costMicroUsd: number | undefined, injectCost: PassthroughCodec["injectCost"]): string[] {
  const json = chunk.json;
  if (!json) return [];
  if (costMicroUsd !== undefined) injectCost(json, costMicroUsd);
  return [chunk.eventName ? sseEvent(chunk.eventName, json) : sseData(json)];
}

/** `cost_usd` beside the other usage fields (OpenAI and Anthropic shapes). */
export function costIntoUsage(usage: unknown, costMicroUsd: number, field = "cost_usd"): void {
  if (usage && typeof usage === "object") (usage as Record<string, unknown>)[field] = costMicroUsd / 1_000_000;
}
