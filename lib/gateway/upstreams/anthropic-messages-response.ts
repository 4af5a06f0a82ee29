/** Anthropic Messages wire response and SSE events → canonical (reference/messages.md). */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { errors } from "../errors";
import { invalidUpstreamEvent, UpstreamStreamError } from "./sse-reader";
import type { UpstreamChunk } from "./text-types";

export function stopFromAnthropic(reason: unknown): StopReason {
  switch (reason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "stop_sequence":
      return "stop_sequence";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "end";
  }
}

type AmUsage = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
};

/** AM's input_tokens excludes the cache: billed input is the sum of the three. */
export function usageFromAnthropic(u: AmUsage | undefined | null, prev?: Usage | null): Usage {
  const cacheRead = u?.cache_read_input_tokens ?? prev?.cacheReadTokens ?? 0;
  const cacheWrite = u?.cache_creation_input_tokens ?? prev?.cacheWriteTokens ?? 0;
  const input = u?.input_tokens != null ? u.input_tokens + cacheRead + cacheWrite : (prev?.inputTokens ?? 0);
  return {
    inputTokens: input,
    outputTokens: u?.output_tokens ?? prev?.outputTokens ?? 0,
    cacheReadTokens: cacheRead || undefined,
    cacheWriteTokens: cacheWrite || undefined,
    reasoningTokens: u?.output_tokens_details?.thinking_tokens ?? prev?.reasoningTokens,
    raw: u,
  };
}

export function fromAnthropicResponse(json: Record<string, unknown>): CanonicalResponse | null {
  if (!Array.isArray(json.content)) return null;
  const content: OutputPart[] = [];
  for (const b of json.content as Array<Record<string, unknown>>) {
    if (b.type === "text" && typeof b.text === "string") content.push({ type: "text", text: b.text });
    else if (b.type === "tool_use")
      content.push({ type: "tool_call", id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: JSON.stringify(b.input ?? {}) });
  }
  return {
    id: String(json.id ?? ""),
    model: String(json.model ?? ""),
    content,
    stopReason: stopFromAnthropic(json.stop_reason),
    stopSequence: (json.stop_sequence as string | null | undefined) ?? null,
    usage: usageFromAnthropic(json.usage as AmUsage),
  };
}

/** Stateful decoder; `done` rides on message_delta, the event that carries the final usage. */
export function createAnthropicDecoder(publicModel: string) {
  let usage: Usage | null = null;
  let finished = false;
  let toolCount = 0;
  const blockTool = new Map<number, number>();

  return {
    push(data: string, event: string | undefined): UpstreamChunk {
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw invalidUpstreamEvent("not JSON");
      }
      const type = (event ?? json.type) as string;
      const events: StreamEvent[] = [];
      switch (type) {
        case "message_start": {
          const msg = json.message as Record<string, unknown> | undefined;
          if (msg) msg.model = publicModel;
          usage = usageFromAnthropic(msg?.usage as AmUsage);
          events.push({ type: "start", id: String(msg?.id ?? ""), model: publicModel, inputTokens: usage.inputTokens });
          events.push({ type: "usage", usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } });
          break;
        }
        case "content_block_start": {
          const b = json.content_block as Record<string, unknown> | undefined;
          if (b?.type === "tool_use") {
            const idx = toolCount++;
            blockTool.set(Number(json.index), idx);
            events.push({ type: "tool_call_start", index: idx, id: String(b.id ?? ""), name: String(b.name ?? "") });
          } else if (b?.type === "text" && typeof b.text === "string" && b.text !== "") events.push({ type: "text_delta", text: b.text });
          break;
        }
        case "content_block_delta": {
          const d = json.delta as Record<string, unknown> | undefined;
          if (d?.type === "text_delta" && typeof d.text === "string") events.push({ type: "text_delta", text: d.text });
          else if (d?.type === "input_json_delta" && typeof d.partial_json === "string" && d.partial_json !== "") {
            const idx = blockTool.get(Number(json.index));
            if (idx !== undefined) events.push({ type: "tool_call_delta", index: idx, arguments: d.partial_json });
          }
          break;
        }
        case "message_delta": {
          const d = json.delta as { stop_reason?: unknown; stop_sequence?: string | null } | undefined;
          usage = usageFromAnthropic(json.usage as AmUsage, usage);
          finished = true;
          events.push({ type: "done", stopReason: stopFromAnthropic(d?.stop_reason), stopSequence: d?.stop_sequence ?? null, usage });
          break;
        }
        case "error": {
          const e = json.error as { message?: string } | undefined;
          throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(e?.message ?? "unknown error")}`), false);
        }
        default:
          // ping, content_block_stop, message_stop, thinking deltas: nothing canonical.
          break;
      }
      return { events, json, eventName: type };
    },
    end(): UpstreamChunk | null {
      if (!finished) throw invalidUpstreamEvent("the stream ended early");
      return null;
    },
  };
}
