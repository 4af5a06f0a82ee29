/** Canonical response and stream events → generateContent wire JSON and `?alt=sse` data-only chunks. */
import { argumentsToObject, type CanonicalResponse, type StopReason, type StreamEvent, type Usage } from "../../canonical";
import { errorBody, type ApiError } from "../../errors";
import { costUsd, protocolId } from "../ids";
import { sseData } from "../../sse";
import type { RenderContext, StreamEncoder } from "../types";

export function finishReason(r: StopReason): string {
  if (r === "max_tokens") return "MAX_TOKENS";
  if (r === "content_filter") return "SAFETY";
  return "STOP";
}

/** candidatesTokenCount excludes thoughts; promptTokenCount includes cached tokens. */
export function renderUsage(u: Usage, costMicroUsd?: number): Record<string, unknown> {
  const reasoning = u.reasoningTokens ?? 0;
  const out: Record<string, unknown> = {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: Math.max(0, u.outputTokens - reasoning),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
  if (reasoning) out.thoughtsTokenCount = reasoning;
  const image = u.imageOutputTokens ?? 0;
  if (image) {
    const text = Math.max(0, u.outputTokens - reasoning - image);
    out.candidatesTokensDetails = [...(text ? [{ modality: "TEXT", tokenCount: text }] : []), { modality: "IMAGE", tokenCount: image }];
  }
  if (u.cacheReadTokens) out.cachedContentTokenCount = u.cacheReadTokens;
  const cost = costUsd(costMicroUsd);
  if (cost !== undefined) out.costUsd = cost;
  return out;
}


function callPart(id: string, name: string, args: string) {
  return { functionCall: { id, name, args: argumentsToObject(args) } };
}

export function renderGenerateContentResponse(resp: CanonicalResponse, ctx: RenderContext): Record<string, unknown> {
  const parts = resp.content.map((p) =>
    p.type === "text"
      ? { text: p.text }
      : p.type === "reasoning"
        ? { text: p.text, thought: true }
        : p.type === "image"
          ? { inlineData: { mimeType: p.source.mediaType, data: p.source.data } }
          : callPart(p.id, p.name, p.arguments),
  );
  return {
    candidates: [{ content: { role: "model", parts: parts.length ? parts : [{ text: "" }] }, finishReason: finishReason(resp.stopReason), index: 0 }],
    usageMetadata: renderUsage(resp.usage, ctx.costMicroUsd),
    modelVersion: ctx.model,
    responseId: protocolId.response().slice(5),
  };
}

export function createGenerateContentStreamEncoder(ctx: RenderContext): StreamEncoder {
  const responseId = protocolId.response().slice(5);
  let promptTokens: number | undefined;
  // GC sends each function call whole in one chunk: collect deltas until the call ends.
  let call: { id: string; name: string; args: string } | null = null;

  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}, usage?: Record<string, unknown>) =>
    sseData({
      candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
      ...(usage ? { usageMetadata: usage } : promptTokens !== undefined ? { usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens } } : {}),
      modelVersion: ctx.model,
      responseId,
    });
  const flushCall = (): string[] => {
    if (!call) return [];
    const c = call;
    call = null;
    return [chunk([callPart(c.id, c.name, c.args)])];
  };

  return {
    encode(e: StreamEvent): string[] {
      switch (e.type) {
        case "start":
          if (e.inputTokens !== undefined) promptTokens = e.inputTokens;
          return [];
        case "usage":
          if (e.usage.inputTokens !== undefined) promptTokens = e.usage.inputTokens;
          return [];
        case "logprobs": // only chat clients ask for them
          return [];
        case "text_delta":
          return [...flushCall(), chunk([{ text: e.text }])];
        case "reasoning_delta":
          return [...flushCall(), chunk([{ text: e.text, thought: true }])];
        case "reasoning_end":
          return [];
        case "image":
          return [...flushCall(), chunk([{ inlineData: { mimeType: e.mediaType, data: e.data } }])];
        case "tool_call_start": {
          const out = flushCall();
          call = { id: e.id, name: e.name, args: "" };
          return out;
        }
        case "tool_call_delta":
          if (call) call.args += e.arguments;
          return [];
        case "done": {
          const parts: unknown[] = [];
          if (call) parts.push(callPart(call.id, call.name, call.args));
          call = null;
          if (!parts.length) parts.push({ text: "" });
          return [chunk(parts, { finishReason: finishReason(e.stopReason) }, e.usage ? renderUsage(e.usage, e.costMicroUsd) : undefined)];
        }
      }
    },
    error(err: ApiError): string[] {
      // The only mid-stream error form the Google SDK detects: a numeric `code` (docs/design.md).
      return [sseData(errorBody(err, "gemini"))];
    },
  };
}

