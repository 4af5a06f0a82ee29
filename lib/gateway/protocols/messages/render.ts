/** Canonical response and stream events → Messages wire JSON and SSE (event: lines required). */
import { argumentsToObject, type CanonicalResponse, type StopReason, type StreamEvent, type Usage } from "../../canonical";
import { errorBody, type ApiError } from "../../errors";
import { estimatePromptTokens } from "../../tokens";
import { usageClasses } from "../../usage";
import { costUsd, protocolId } from "../ids";
import { FOREIGN_SIGNATURE_PREFIX } from "./parse-request";
import { sseEvent } from "../../sse";
import type { RenderContext, StreamEncoder } from "../types";

export function stopReason(r: StopReason): string {
  switch (r) {
    case "stop_sequence":
      return "stop_sequence";
    case "max_tokens":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

/**
 * AM's input_tokens excludes cache reads and writes (reference/messages.md); the writes are
 * reported in total and split by TTL.
 */
export function renderUsage(u: Usage, costMicroUsd?: number): Record<string, unknown> {
  const c = usageClasses(u);
  const out: Record<string, unknown> = {
    input_tokens: c.input,
    output_tokens: u.outputTokens,
    cache_creation_input_tokens: c.cacheWrite5m + c.cacheWrite1h,
    cache_read_input_tokens: c.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: c.cacheWrite5m, ephemeral_1h_input_tokens: c.cacheWrite1h },
  };
  if (c.reasoning) out.output_tokens_details = { thinking_tokens: c.reasoning };
  const cost = costUsd(costMicroUsd);
  if (cost !== undefined) out.cost_usd = cost;
  return out;
}

/**
 * Messages has no image output block. A model priced as one that draws is refused on /v1/messages
 * before the call (decision 0073); an image from any other model is said in words, not dropped.
 */
export function imageOmitted(mediaType: string): string {
  return `[The model drew an image (${mediaType}) here; the Messages API cannot carry images in an answer.]`;
}

export function renderMessagesResponse(resp: CanonicalResponse, ctx: RenderContext): Record<string, unknown> {
  return {
    id: protocolId.message(),
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: resp.content.map((p) =>
      p.type === "text"
        ? { type: "text", text: p.text }
        : p.type === "image"
          ? { type: "text", text: imageOmitted(p.source.mediaType) }
        : p.type === "reasoning"
          ? { type: "thinking", thinking: p.text, signature: `${FOREIGN_SIGNATURE_PREFIX}${p.origin}` }
          : { type: "tool_use", id: p.id, name: p.name, input: argumentsToObject(p.arguments) },
    ),
    stop_reason: stopReason(resp.stopReason),
    stop_sequence: resp.stopSequence ?? null,
    usage: renderUsage(resp.usage, ctx.costMicroUsd),
  };
}

export function createMessagesStreamEncoder(ctx: RenderContext): StreamEncoder {
  let started = false;
  let blockCount = 0;
  let open: { index: number; kind: "text" | "tool" | "thinking"; tool?: number } | null = null;
  const toolBlock = new Map<number, number>();

  const start = (id?: string, input?: number, cacheRead = 0): string[] => {
    if (started) return [];
    started = true;
    // Clients size their context from message_start (Claude Code shows 0 otherwise; LangChain
    // takes the prompt count from here alone). The upstream's own count when its first event has
    // it (Gemini), split as Anthropic's; else (OpenAI: only at the end) our estimate of the prompt.
    // message_delta then carries the whole usage, cumulative and authoritative, as Anthropic's does.
    const inputTokens = input !== undefined ? input - cacheRead : estimatePromptTokens(ctx.request);
    const cacheReadTokens = input !== undefined ? cacheRead : 0;
    return [
      sseEvent("message_start", {
        type: "message_start",
        message: {
          id: id ?? protocolId.message(),
          type: "message",
          role: "assistant",
          model: ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: cacheReadTokens },
        },
      }),
    ];
  };
  const close = (origin = "other"): string[] => {
    if (!open) return [];
    const idx = open.index;
    const out: string[] = [];
    // A thinking block ends on its signature; another vendor's reasoning gets our marker.
    if (open.kind === "thinking")
      out.push(sseEvent("content_block_delta", { type: "content_block_delta", index: idx, delta: { type: "signature_delta", signature: `${FOREIGN_SIGNATURE_PREFIX}${origin}` } }));
    open = null;
    out.push(sseEvent("content_block_stop", { type: "content_block_stop", index: idx }));
    return out;
  };

  return {
    encode(e: StreamEvent): string[] {
      switch (e.type) {
        case "start":
          return start(protocolId.message(), e.inputTokens, e.cacheReadTokens);
        case "text_delta":
        case "image": {
          const out = start();
          if (!open || open.kind !== "text") {
            out.push(...close());
            open = { index: blockCount++, kind: "text" };
            out.push(sseEvent("content_block_start", { type: "content_block_start", index: open.index, content_block: { type: "text", text: "" } }));
          }
          const text = e.type === "image" ? imageOmitted(e.mediaType) : e.text;
          out.push(sseEvent("content_block_delta", { type: "content_block_delta", index: open.index, delta: { type: "text_delta", text } }));
          return out;
        }
        case "reasoning_delta": {
          const out = start();
          if (!open || open.kind !== "thinking") {
            out.push(...close());
            open = { index: blockCount++, kind: "thinking" };
            out.push(sseEvent("content_block_start", { type: "content_block_start", index: open.index, content_block: { type: "thinking", thinking: "", signature: "" } }));
          }
          out.push(sseEvent("content_block_delta", { type: "content_block_delta", index: open.index, delta: { type: "thinking_delta", thinking: e.text } }));
          return out;
        }
        case "reasoning_end":
          return open?.kind === "thinking" ? close(e.origin) : [];
        case "tool_call_start": {
          const out = [...start(), ...close()];
          open = { index: blockCount++, kind: "tool", tool: e.index };
          toolBlock.set(e.index, open.index);
          out.push(
            sseEvent("content_block_start", {
              type: "content_block_start",
              index: open.index,
              content_block: { type: "tool_use", id: e.id, name: e.name, input: {} },
            }),
          );
          return out;
        }
        case "tool_call_delta": {
          const idx = toolBlock.get(e.index);
          if (idx === undefined) return [];
          return [sseEvent("content_block_delta", { type: "content_block_delta", index: idx, delta: { type: "input_json_delta", partial_json: e.arguments } })];
        }
        case "usage":
        case "logprobs": // only chat clients ask for them
          return [];
        case "done": {
          const out = [...start(), ...close()];
          const usage = e.usage ? renderUsage(e.usage, e.costMicroUsd) : { output_tokens: 0 };
          out.push(
            sseEvent("message_delta", {
              type: "message_delta",
              delta: { stop_reason: stopReason(e.stopReason), stop_sequence: e.stopSequence ?? null },
              usage,
            }),
            sseEvent("message_stop", { type: "message_stop" }),
          );
          return out;
        }
      }
    },
    error(err: ApiError): string[] {
      return [sseEvent("error", errorBody(err, "anthropic"))];
    },
  };
}
