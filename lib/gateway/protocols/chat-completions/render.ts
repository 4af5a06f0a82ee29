/** Canonical response and stream events → Chat Completions wire JSON and SSE. */
import type { CanonicalResponse, StopReason, StreamEvent, TokenLogprob, Usage } from "../../canonical";
import { errorBody, type ApiError } from "../../errors";
import { costUsd, nowSeconds, protocolId } from "../ids";
import { sseData } from "../../sse";
import type { RenderContext, StreamEncoder } from "../types";

export function finishReason(r: StopReason): string {
  switch (r) {
    case "max_tokens":
      return "length";
    case "tool_calls":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

/**
 * cached_tokens is the part of prompt_tokens read from the cache; cache_write_tokens (in the
 * SDK's types, sent by OpenAI-compatible upstreams) the part written, when there is any.
 */
export function promptDetails(u: Usage): Record<string, number> {
  const out: Record<string, number> = { cached_tokens: u.cacheReadTokens ?? 0 };
  const writes = (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0);
  if (writes) out.cache_write_tokens = writes;
  return out;
}

export function renderUsage(u: Usage, costMicroUsd?: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: promptDetails(u),
    completion_tokens_details: u.imageOutputTokens ? { reasoning_tokens: u.reasoningTokens ?? 0, image_tokens: u.imageOutputTokens } : { reasoning_tokens: u.reasoningTokens ?? 0 },
  };
  const cost = costUsd(costMicroUsd);
  if (cost !== undefined) out.cost_usd = cost;
  return out;
}

/** Chat's `logprobs` of a choice (null when not asked for); the UTF-8 bytes are derived from the token. */
function renderLogprobs(list: TokenLogprob[] | undefined): Record<string, unknown> | null {
  if (!list) return null;
  const bytes = (t: string) => [...Buffer.from(t, "utf8")];
  return {
    content: list.map((l) => ({ token: l.token, logprob: l.logprob, bytes: bytes(l.token), top_logprobs: l.topLogprobs.map((t) => ({ token: t.token, logprob: t.logprob, bytes: bytes(t.token) })) })),
    refusal: null,
  };
}

/**
 * A drawn image as OpenRouter carries it (`message.images[]`, `delta.images[]`): chat has no image
 * output of its own, and this is the form OpenAI-compatible clients already read (decision 0073).
 */
function imageEntry(mediaType: string, data: string, index: number): Record<string, unknown> {
  return { type: "image_url", image_url: { url: `data:${mediaType};base64,${data}` }, index };
}

export function renderChatResponse(resp: CanonicalResponse, ctx: RenderContext): Record<string, unknown> {
  let text = "";
  let reasoning = "";
  const toolCalls: unknown[] = [];
  const images: unknown[] = [];
  for (const p of resp.content) {
    if (p.type === "text") text += p.text;
    else if (p.type === "reasoning") reasoning += p.text;
    else if (p.type === "image") images.push(imageEntry(p.source.mediaType, p.source.data, images.length));
    else toolCalls.push({ id: p.id, type: "function", function: { name: p.name, arguments: p.arguments } });
  }
  const message: Record<string, unknown> = {
    role: "assistant",
    content: text === "" && toolCalls.length ? null : text,
    refusal: null,
  };
  if (toolCalls.length) message.tool_calls = toolCalls;
  if (images.length) message.images = images;
  // The de-facto field of OpenAI-compatible servers (DeepSeek, vLLM) for the reasoning text.
  if (reasoning) message.reasoning_content = reasoning;
  return {
    id: protocolId.chat(),
    object: "chat.completion",
    created: nowSeconds(),
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: renderLogprobs(resp.logprobs), finish_reason: finishReason(resp.stopReason) }],
    usage: renderUsage(resp.usage, ctx.costMicroUsd),
  };
}

export function createChatStreamEncoder(ctx: RenderContext): StreamEncoder {
  const id = protocolId.chat();
  const created = nowSeconds();
  const withUsage = ctx.request.includeUsage === true;
  let started = false;
  let images = 0;

  const chunk = (delta: Record<string, unknown>, finish: string | null = null, logprobs?: TokenLogprob[]): string => {
    const c: Record<string, unknown> = {
      id,
      object: "chat.completion.chunk",
      created,
      model: ctx.model,
      choices: [{ index: 0, delta, logprobs: renderLogprobs(logprobs), finish_reason: finish }],
    };
    if (withUsage) c.usage = null;
    return sseData(c);
  };
  const start = (): string[] => {
    if (started) return [];
    started = true;
    return [chunk({ role: "assistant", content: "" })];
  };

  return {
    encode(ev: StreamEvent): string[] {
      switch (ev.type) {
        case "start":
          return start();
        case "text_delta":
          return [...start(), chunk({ content: ev.text })];
        case "reasoning_delta":
          return [...start(), chunk({ reasoning_content: ev.text })];
        case "reasoning_end":
          return [];
        case "image":
          return [...start(), chunk({ images: [imageEntry(ev.mediaType, ev.data, images++)] })];
        case "tool_call_start":
          return [
            ...start(),
            chunk({
              tool_calls: [{ index: ev.index, id: ev.id, type: "function", function: { name: ev.name, arguments: "" } }],
            }),
          ];
        case "tool_call_delta":
          return [...start(), chunk({ tool_calls: [{ index: ev.index, function: { arguments: ev.arguments } }] })];
        case "usage":
          return [];
        case "logprobs":
          return [...start(), chunk({}, null, ev.content)];
        case "done": {
          const out = [...start(), chunk({}, finishReason(ev.stopReason))];
          if (withUsage && ev.usage)
            out.push(
              sseData({
                id,
                object: "chat.completion.chunk",
                created,
                model: ctx.model,
                choices: [],
                usage: renderUsage(ev.usage, ev.costMicroUsd),
              }),
            );
          out.push("data: [DONE]\n\n");
          return out;
        }
      }
    },
    error(err: ApiError): string[] {
      // The openai SDK throws an APIError for any data payload with an `error` key.
      return [sseData(errorBody(err, "openai"))];
    },
  };
}
