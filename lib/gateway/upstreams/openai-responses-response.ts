/** OpenAI Responses wire response and SSE events → canonical (reference/responses.md). */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { errors } from "../errors";
import { makeUsage } from "../usage";
import { invalidUpstreamEvent, UpstreamStreamError } from "./sse-reader";
import type { UpstreamChunk } from "./text-types";

/** input_tokens includes cached_tokens; output_tokens includes reasoning. */
export function usageFromResponses(u: unknown): Usage | null {
  if (!u || typeof u !== "object") return null;
  const x = u as Record<string, unknown>;
  const id = (x.input_tokens_details && typeof x.input_tokens_details === "object" ? x.input_tokens_details : {}) as Record<string, unknown>;
  const od = (x.output_tokens_details && typeof x.output_tokens_details === "object" ? x.output_tokens_details : {}) as Record<string, unknown>;
  return makeUsage({ inputTotal: x.input_tokens, cacheRead: id.cached_tokens, cacheWrite: id.cache_write_tokens, outputTotal: x.output_tokens, reasoning: od.reasoning_tokens }, u);
}

function stopOf(r: Record<string, unknown>, sawCall: boolean): StopReason {
  const reason = (r.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
  if (r.status === "incomplete") return reason === "content_filter" ? "content_filter" : "max_tokens";
  return sawCall ? "tool_calls" : "end";
}

export function fromOpenAIResponsesResponse(json: Record<string, unknown>): CanonicalResponse | null {
  if (!Array.isArray(json.output)) return null;
  const content: OutputPart[] = [];
  let sawCall = false;
  for (const item of json.output as Array<Record<string, unknown>>) {
    if (item?.type === "message" && Array.isArray(item.content)) {
      for (const c of item.content as Array<Record<string, unknown>>) {
        if (c.type === "output_text" && typeof c.text === "string" && c.text !== "") content.push({ type: "text", text: c.text });
        else if (c.type === "refusal" && typeof c.refusal === "string" && c.refusal !== "") content.push({ type: "text", text: c.refusal });
      }
    } else if (item?.type === "function_call") {
      sawCall = true;
      content.push({ type: "tool_call", id: String(item.call_id ?? ""), name: String(item.name ?? ""), arguments: typeof item.arguments === "string" ? item.arguments : "" });
    }
  }
  return {
    id: String(json.id ?? ""),
    model: String(json.model ?? ""),
    content,
    stopReason: stopOf(json, sawCall),
    usage: usageFromResponses(json.usage) ?? makeUsage({}),
  };
}

const TERMINAL = new Set(["response.completed", "response.incomplete"]);

/**
 * Stateful decoder of Responses SSE events. Passthrough keeps every event (unknown types
 * included); the canonical meaning is what converted clients and the meter need.
 */
export function createOpenAIResponsesDecoder(publicModel: string) {
  let started = false;
  let finished = false;
  let sawCall = false;
  const calls = new Map<string, number>();

  return {
    push(data: string, event?: string): UpstreamChunk {
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw invalidUpstreamEvent("not JSON");
      }
      if (!json || typeof json !== "object") throw invalidUpstreamEvent("not a JSON object");
      const type = typeof json.type === "string" ? json.type : event;
      const response = json.response && typeof json.response === "object" ? (json.response as Record<string, unknown>) : null;
      if (response && "model" in response) response.model = publicModel;
      if (type === "error") {
        throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(json.message ?? "unknown error")}`), false);
      }
      if (type === "response.failed") {
        const e = response?.error as { message?: unknown } | null | undefined;
        throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(e?.message ?? "unknown error")}`), false);
      }
      const events: StreamEvent[] = [];
      if (!started) {
        started = true;
        events.push({ type: "start", id: String(response?.id ?? ""), model: publicModel });
      }
      switch (type) {
        case "response.output_text.delta":
        case "response.refusal.delta":
          if (typeof json.delta === "string" && json.delta !== "") events.push({ type: "text_delta", text: json.delta });
          break;
        case "response.output_item.added": {
          const item = json.item as Record<string, unknown> | undefined;
          if (item?.type === "function_call") {
            sawCall = true;
            const index = calls.size;
            calls.set(String(item.id ?? json.output_index), index);
            events.push({ type: "tool_call_start", index, id: String(item.call_id ?? ""), name: String(item.name ?? "") });
            if (typeof item.arguments === "string" && item.arguments !== "") events.push({ type: "tool_call_delta", index, arguments: item.arguments });
          }
          break;
        }
        case "response.function_call_arguments.delta": {
          const index = calls.get(String(json.item_id ?? json.output_index));
          if (index !== undefined && typeof json.delta === "string" && json.delta !== "") events.push({ type: "tool_call_delta", index, arguments: json.delta });
          break;
        }
        default:
          if (type && TERMINAL.has(type) && response && !finished) {
            finished = true;
            events.push({ type: "done", stopReason: stopOf(response, sawCall), usage: usageFromResponses(response.usage) });
          }
      }
      return { events, json, eventName: type };
    },
    /** The body ended: a stream cut before its terminal event is an upstream failure. */
    end(): UpstreamChunk | null {
      if (finished) return null;
      throw invalidUpstreamEvent("the stream ended early");
    },
  };
}
