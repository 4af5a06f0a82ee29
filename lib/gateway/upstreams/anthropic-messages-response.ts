/** Anthropic Messages wire response and SSE events → canonical (reference/messages.md). */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { errors } from "../errors";
import { makeUsage } from "../usage";
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

type AmUsage = Record<string, unknown> & {
  cache_creation?: Record<string, unknown> | null;
  output_tokens_details?: Record<string, unknown> | null;
};

/**
 * AM's input_tokens excludes the cache: billed input is the sum of the three. In a stream,
 * message_delta's counts are cumulative and may omit fields: they override message_start's
 * field by field (`prev` is the raw usage seen so far).
 */
export function usageFromAnthropic(u: unknown, prev?: Usage | null): Usage {
  const cur = u && typeof u === "object" ? (u as AmUsage) : {};
  const before = prev?.raw && typeof prev.raw === "object" ? (prev.raw as AmUsage) : {};
  const x: AmUsage = { ...before };
  for (const [k, v] of Object.entries(cur)) if (v !== null && v !== undefined) x[k] = v;
  const split = x.cache_creation && typeof x.cache_creation === "object" ? x.cache_creation : undefined;
  const details = x.output_tokens_details && typeof x.output_tokens_details === "object" ? x.output_tokens_details : undefined;
  return makeUsage(
    {
      inputUncached: x.input_tokens,
      cacheRead: x.cache_read_input_tokens,
      cacheWrite: x.cache_creation_input_tokens,
      cacheWrite5m: split?.ephemeral_5m_input_tokens,
      cacheWrite1h: split?.ephemeral_1h_input_tokens,
      outputTotal: x.output_tokens,
      reasoning: details?.thinking_tokens,
    },
    x,
  );
}

export function fromAnthropicResponse(json: Record<string, unknown>): CanonicalResponse | null {
  if (!Array.isArray(json.content)) return null;
  const content: OutputPart[] = [];
  for (const b of json.content as Array<Record<string, unknown>>) {
    if (b.type === "text" && typeof b.text === "string") content.push({ type: "text", text: b.text });
    else if (b.type === "thinking")
      content.push({ type: "reasoning", origin: "anthropic", text: String(b.thinking ?? ""), signature: typeof b.signature === "string" ? b.signature : undefined });
    else if (b.type === "redacted_thinking" && typeof b.data === "string") content.push({ type: "reasoning", origin: "anthropic", text: "", redacted: b.data });
    else if (b.type === "tool_use")
      content.push({ type: "tool_call", id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: JSON.stringify(b.input ?? {}) });
  }
  return {
    id: String(json.id ?? ""),
    model: String(json.model ?? ""),
    content,
    stopReason: stopFromAnthropic(json.stop_reason),
    stopSequence: (json.stop_sequence as string | null | undefined) ?? null,
    usage: usageFromAnthropic(json.usage),
  };
}

/** Stateful decoder; `done` rides on message_delta, the event that carries the final usage. */
export function createAnthropicDecoder(publicModel: string) {
  let usage: Usage | null = null;
  let finished = false;
  let toolCount = 0;
  const blockTool = new Map<number, number>();
  /** Tool blocks that streamed some arguments; one with none gets "{}" (a call without arguments). */
  const withArgs = new Set<number>();
  // Open thinking blocks by index: their signature arrives last, in a signature_delta.
  const thinking = new Map<number, { signature?: string; redacted?: string }>();

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
          usage = usageFromAnthropic(msg?.usage);
          const known = !usage.unreported?.includes("input");
          events.push({ type: "start", id: String(msg?.id ?? ""), model: publicModel, inputTokens: known ? usage.inputTokens : undefined });
          if (known) events.push({ type: "usage", usage: { inputTokens: usage.inputTokens } });
          break;
        }
        case "content_block_start": {
          const b = json.content_block as Record<string, unknown> | undefined;
          if (b?.type === "tool_use") {
            const idx = toolCount++;
            blockTool.set(Number(json.index), idx);
            events.push({ type: "tool_call_start", index: idx, id: String(b.id ?? ""), name: String(b.name ?? "") });
          } else if (b?.type === "text" && typeof b.text === "string" && b.text !== "") events.push({ type: "text_delta", text: b.text });
          else if (b?.type === "thinking") {
            thinking.set(Number(json.index), { signature: typeof b.signature === "string" && b.signature ? b.signature : undefined });
            if (typeof b.thinking === "string" && b.thinking !== "") events.push({ type: "reasoning_delta", text: b.thinking });
          } else if (b?.type === "redacted_thinking") thinking.set(Number(json.index), { redacted: String(b.data ?? "") });
          break;
        }
        case "content_block_stop": {
          // Claude streams a call without arguments as no input_json_delta at all; chat and
          // Responses clients then parse "" (not JSON) as the arguments.
          const tool = blockTool.get(Number(json.index));
          if (tool !== undefined && !withArgs.has(Number(json.index))) events.push({ type: "tool_call_delta", index: tool, arguments: "{}" });
          const t = thinking.get(Number(json.index));
          if (t) {
            thinking.delete(Number(json.index));
            events.push({ type: "reasoning_end", origin: "anthropic", ...t });
          }
          break;
        }
        case "content_block_delta": {
          const d = json.delta as Record<string, unknown> | undefined;
          if (d?.type === "text_delta" && typeof d.text === "string") events.push({ type: "text_delta", text: d.text });
          else if (d?.type === "thinking_delta" && typeof d.thinking === "string" && d.thinking !== "") events.push({ type: "reasoning_delta", text: d.thinking });
          else if (d?.type === "signature_delta" && typeof d.signature === "string") {
            const t = thinking.get(Number(json.index));
            if (t) t.signature = (t.signature ?? "") + d.signature;
          }
          else if (d?.type === "input_json_delta" && typeof d.partial_json === "string" && d.partial_json !== "") {
            const idx = blockTool.get(Number(json.index));
            withArgs.add(Number(json.index));
            if (idx !== undefined) events.push({ type: "tool_call_delta", index: idx, arguments: d.partial_json });
          }
          break;
        }
        case "message_delta": {
          const d = json.delta as { stop_reason?: unknown; stop_sequence?: string | null } | undefined;
          usage = usageFromAnthropic(json.usage, usage);
          finished = true;
          events.push({ type: "done", stopReason: stopFromAnthropic(d?.stop_reason), stopSequence: d?.stop_sequence ?? null, usage });
          break;
        }
        case "error": {
          const e = json.error as { message?: string } | undefined;
          throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(e?.message ?? "unknown error")}`), false);
        }
        default:
          // ping, message_stop: nothing canonical.
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
