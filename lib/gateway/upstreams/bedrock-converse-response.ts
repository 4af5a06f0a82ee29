/**
 * Amazon Bedrock Converse answers → canonical: the whole answer of `Converse`, and the events of
 * `ConverseStream` (messageStart, contentBlockStart/Delta/Stop, messageStop, metadata), already
 * taken out of AWS's binary event-stream framing by the SDK's codec (bedrock-converse.ts).
 */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { makeUsage } from "../usage";
import { bedrockStreamException } from "./bedrock-event-stream";
import { invalidUpstreamEvent } from "./sse-reader";
import type { UpstreamChunk } from "./text-types";

export function stopFromConverse(reason: unknown): StopReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "stop_sequence":
      return "stop_sequence";
    case "content_filtered":
    case "guardrail_intervened":
      return "content_filter";
    default:
      return "end";
  }
}

/** Converse's inputTokens leaves the cache out (as Anthropic's does); outputTokens includes thinking. */
export function usageFromConverse(u: unknown): Usage | null {
  if (!u || typeof u !== "object") return null;
  const x = u as Record<string, unknown>;
  return makeUsage({ inputUncached: x.inputTokens, cacheRead: x.cacheReadInputTokens, cacheWrite: x.cacheWriteInputTokens, outputTotal: x.outputTokens }, u);
}

type Block = { text?: unknown; toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown }; reasoningContent?: { reasoningText?: { text?: unknown } } };

export function fromConverseResponse(json: Record<string, unknown>): CanonicalResponse | null {
  const message = (json.output as { message?: { content?: unknown } } | undefined)?.message;
  if (!message || !Array.isArray(message.content)) return null;
  const content: OutputPart[] = [];
  for (const b of message.content as Block[]) {
    if (typeof b.text === "string" && b.text !== "") content.push({ type: "text", text: b.text });
    else if (b.toolUse) content.push({ type: "tool_call", id: String(b.toolUse.toolUseId ?? ""), name: String(b.toolUse.name ?? ""), arguments: JSON.stringify(b.toolUse.input ?? {}) });
    else if (typeof b.reasoningContent?.reasoningText?.text === "string") content.push({ type: "reasoning", origin: "other", text: b.reasoningContent.reasoningText.text });
  }
  return { id: String(json.requestId ?? ""), model: "", content, stopReason: stopFromConverse(json.stopReason), usage: usageFromConverse(json.usage) ?? makeUsage({}) };
}

/**
 * One ConverseStream event (its `:event-type` and JSON payload) at a time → canonical events.
 * The terminal `done` is emitted on `metadata` (the usage comes after `messageStop`).
 */
export function createConverseDecoder(publicModel: string, requestId: string) {
  let started = false;
  let finish: StopReason | null = null;
  let finished = false;
  const blocks = new Map<number, { kind: "tool"; index: number } | { kind: "reasoning" }>();
  let tools = 0;

  const start = (events: StreamEvent[]) => {
    if (started) return;
    started = true;
    events.push({ type: "start", id: requestId, model: publicModel });
  };

  return {
    push(eventType: string, payload: Record<string, unknown>): UpstreamChunk {
      const events: StreamEvent[] = [];
      start(events);
      const at = Number(payload.contentBlockIndex ?? 0);
      switch (eventType) {
        case "messageStart":
          break;
        case "contentBlockStart": {
          const tu = (payload.start as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)?.toolUse;
          if (tu) {
            const index = tools++;
            blocks.set(at, { kind: "tool", index });
            events.push({ type: "tool_call_start", index, id: String(tu.toolUseId ?? `call_${index}`), name: String(tu.name ?? "") });
          }
          break;
        }
        case "contentBlockDelta": {
          const d = (payload.delta ?? {}) as { text?: unknown; toolUse?: { input?: unknown }; reasoningContent?: { text?: unknown } };
          const block = blocks.get(at);
          if (typeof d.text === "string" && d.text !== "") events.push({ type: "text_delta", text: d.text });
          else if (d.toolUse && block?.kind === "tool" && typeof d.toolUse.input === "string") events.push({ type: "tool_call_delta", index: block.index, arguments: d.toolUse.input });
          else if (d.reasoningContent) {
            if (!block) blocks.set(at, { kind: "reasoning" });
            if (typeof d.reasoningContent.text === "string" && d.reasoningContent.text !== "") events.push({ type: "reasoning_delta", text: d.reasoningContent.text });
          }
          break;
        }
        case "contentBlockStop":
          // Bedrock's reasoning signatures are valid at Bedrock only: never carried to a client.
          if (blocks.get(at)?.kind === "reasoning") events.push({ type: "reasoning_end", origin: "other" });
          break;
        case "messageStop":
          finish = stopFromConverse(payload.stopReason);
          break;
        case "metadata": {
          if (finish === null) throw invalidUpstreamEvent("usage before the end of the message");
          finished = true;
          events.push({ type: "done", stopReason: finish, usage: usageFromConverse(payload.usage) });
          break;
        }
        default:
          break;
      }
      return { events };
    },
    /** An exception event of the stream (throttling, validation, model errors). */
    fail: bedrockStreamException,
    end(): UpstreamChunk | null {
      if (finished) return null;
      if (finish === null) throw invalidUpstreamEvent("the stream ended early");
      finished = true;
      return { events: [{ type: "done", stopReason: finish, usage: null }] };
    },
  };
}
