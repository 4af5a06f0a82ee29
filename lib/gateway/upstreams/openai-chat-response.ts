/** OpenAI Chat Completions wire response and SSE chunks → canonical (reference/chat-completions.md). */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { errors } from "../errors";
import { makeUsage } from "../usage";
import { invalidUpstreamEvent, UpstreamStreamError } from "./sse-reader";
import type { UpstreamChunk } from "./text-types";

export function stopFromOpenAI(reason: unknown): StopReason {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "end";
  }
}

/** prompt_tokens includes cached_tokens (and cache_write_tokens); completion_tokens includes reasoning. */
export function usageFromOpenAI(u: unknown): Usage | null {
  if (!u || typeof u !== "object") return null;
  const x = u as Record<string, unknown>;
  const pd = (x.prompt_tokens_details && typeof x.prompt_tokens_details === "object" ? x.prompt_tokens_details : {}) as Record<string, unknown>;
  const cd = (x.completion_tokens_details && typeof x.completion_tokens_details === "object" ? x.completion_tokens_details : {}) as Record<string, unknown>;
  return makeUsage(
    { inputTotal: x.prompt_tokens, cacheRead: pd.cached_tokens, cacheWrite: pd.cache_write_tokens, outputTotal: x.completion_tokens, reasoning: cd.reasoning_tokens },
    u,
  );
}

export function fromOpenAIChatResponse(json: Record<string, unknown>): CanonicalResponse | null {
  const choice = (json.choices as Array<Record<string, unknown>> | undefined)?.[0];
  const message = choice?.message as { content?: unknown; tool_calls?: unknown; refusal?: unknown; reasoning_content?: unknown; reasoning?: unknown } | undefined;
  if (!choice || !message) return null;
  const content: OutputPart[] = [];
  // OpenAI-compatible servers (DeepSeek, vLLM, OpenRouter) return reasoning text here.
  const reasoning = typeof message.reasoning_content === "string" ? message.reasoning_content : typeof message.reasoning === "string" ? message.reasoning : "";
  if (reasoning) content.push({ type: "reasoning", origin: "other", text: reasoning });
  if (typeof message.content === "string" && message.content !== "") content.push({ type: "text", text: message.content });
  else if (typeof message.refusal === "string" && message.refusal) content.push({ type: "text", text: message.refusal });
  for (const tc of (message.tool_calls as Array<{ id?: string; function?: { name?: string; arguments?: string } }>) ?? [])
    content.push({ type: "tool_call", id: tc.id ?? "", name: tc.function?.name ?? "", arguments: tc.function?.arguments ?? "" });
  return {
    id: String(json.id ?? ""),
    model: String(json.model ?? ""),
    content,
    stopReason: stopFromOpenAI(choice.finish_reason),
    usage: usageFromOpenAI(json.usage) ?? makeUsage({}),
  };
}

/**
 * Stateful decoder of CC chunks. The terminal `done` is emitted on the usage chunk (we always
 * ask for it) so a passthrough can put the cost into that very chunk, or on `[DONE]` when an
 * upstream sent no usage.
 */
export function createOpenAIChatDecoder(publicModel: string) {
  let started = false;
  let finish: StopReason | null = null;
  let finished = false;
  let usage: Usage | null = null;
  const toolIndex = new Map<number, number>();
  let thinking = false;

  return {
    push(data: string): UpstreamChunk {
      if (data.trim() === "[DONE]") {
        if (finished) return { events: [], doneMarker: true };
        finished = true;
        if (finish === null) throw invalidUpstreamEvent("the stream ended without a finish reason");
        return { events: [{ type: "done", stopReason: finish, usage }], doneMarker: true };
      }
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw invalidUpstreamEvent("not JSON");
      }
      if (!json || typeof json !== "object") throw invalidUpstreamEvent("not a JSON object");
      if (json.error) {
        const e = json.error as { message?: string };
        throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(e.message ?? "unknown error")}`), false);
      }
      if ("model" in json) json.model = publicModel;
      const events: StreamEvent[] = [];
      if (!started) {
        started = true;
        events.push({ type: "start", id: String(json.id ?? ""), model: publicModel });
      }
      const choice = (json.choices as Array<Record<string, unknown>> | undefined)?.[0];
      const delta = choice?.delta as { content?: unknown; refusal?: unknown; tool_calls?: unknown; reasoning_content?: unknown; reasoning?: unknown } | undefined;
      if (delta) {
        const r = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
        if (r !== "") {
          thinking = true;
          events.push({ type: "reasoning_delta", text: r });
        } else if (thinking && ((typeof delta.content === "string" && delta.content !== "") || delta.tool_calls)) {
          thinking = false;
          events.push({ type: "reasoning_end", origin: "other" });
        }
        if (typeof delta.content === "string" && delta.content !== "") events.push({ type: "text_delta", text: delta.content });
        if (typeof delta.refusal === "string" && delta.refusal !== "") events.push({ type: "text_delta", text: delta.refusal });
        for (const tc of (delta.tool_calls as Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>) ?? []) {
          const upstreamIndex = tc.index ?? 0;
          let idx = toolIndex.get(upstreamIndex);
          if (idx === undefined) {
            idx = toolIndex.size;
            toolIndex.set(upstreamIndex, idx);
            events.push({ type: "tool_call_start", index: idx, id: tc.id ?? `call_${idx}`, name: tc.function?.name ?? "" });
          }
          const args = tc.function?.arguments;
          if (typeof args === "string" && args !== "") events.push({ type: "tool_call_delta", index: idx, arguments: args });
        }
      }
      if (choice?.finish_reason) finish = stopFromOpenAI(choice.finish_reason);
      const u = usageFromOpenAI(json.usage);
      if (u) {
        usage = u;
        if (finish !== null && !finished) {
          finished = true;
          events.push({ type: "done", stopReason: finish, usage });
        }
      }
      return { events, json };
    },
    /** The body ended: a stream cut before its end is an upstream failure. */
    end(): UpstreamChunk | null {
      if (finished) return null;
      if (finish === null) throw invalidUpstreamEvent("the stream ended early");
      finished = true;
      return { events: [{ type: "done", stopReason: finish, usage }] };
    },
  };
}
