/** Gemini generateContent wire response and `?alt=sse` chunks → canonical. */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, TokenLogprob, Usage } from "../canonical";
import { errors } from "../errors";
import { makeUsage, tokenCount } from "../usage";
import { randomBase62 } from "../../ids";
import { idWithSignature } from "../conversion/signatures";
import { invalidUpstreamEvent, UpstreamStreamError } from "./sse-reader";
import type { UpstreamChunk } from "./text-types";

export function stopFromGemini(reason: unknown, hasCalls: boolean): StopReason {
  if (hasCalls) return "tool_calls";
  switch (reason) {
    case "MAX_TOKENS":
      return "max_tokens";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
    case "IMAGE_PROHIBITED_CONTENT":
    case "IMAGE_RECITATION":
      return "content_filter";
    default:
      return "end";
  }
}

type GcUsage = Record<string, unknown>;

/**
 * Billed input = prompt (cached content included) + tool-use prompt; billed output =
 * candidates + thoughts (candidatesTokenCount excludes thoughts). Gemini reports no cache writes.
 */
export function usageFromGemini(u: GcUsage | undefined): Usage | null {
  if (!u || typeof u !== "object") return null;
  const prompt = tokenCount(u.promptTokenCount);
  const toolUse = tokenCount(u.toolUsePromptTokenCount) ?? 0;
  const usage = makeUsage(
    {
      inputTotal: typeof prompt === "number" ? prompt + toolUse : u.promptTokenCount,
      cacheRead: u.cachedContentTokenCount,
      // proto3 JSON omits zero counts: with a prompt count present, no candidates count is 0.
      outputVisible: u.candidatesTokenCount ?? (prompt !== undefined ? 0 : undefined),
      reasoning: u.thoughtsTokenCount,
      imageOutput: imageTokens(u.candidatesTokensDetails),
    },
    u,
  );
  if (toolUse === null) (usage.invalidFields ??= []).push("toolUsePromptTokenCount");
  return usage;
}

/** The IMAGE modality's count in candidatesTokensDetails (image models report their drawing there). */
function imageTokens(details: unknown): unknown {
  if (!Array.isArray(details)) return undefined;
  return (details as Array<{ modality?: string; tokenCount?: unknown }>).find((d) => d?.modality === "IMAGE")?.tokenCount;
}

type GcPart = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name?: string; args?: unknown; id?: string };
  inlineData?: { mimeType?: string; data?: string };
};

/** A drawn image (not a thought's interim image: Gemini 3 Pro Image thinks in pictures it does not bill as output). */
function drawnImage(p: GcPart): { mediaType: string; data: string } | null {
  const d = p.inlineData;
  if (p.thought || !d || typeof d.data !== "string" || !d.mimeType?.startsWith("image/")) return null;
  return { mediaType: d.mimeType, data: d.data };
}

/** The id clients see: Gemini's (or ours) carrying the call's thoughtSignature (conversion/signatures.ts). */
function callId(p: GcPart): string {
  return idWithSignature(p.functionCall?.id ?? `call_${randomBase62(24)}`, p.thoughtSignature);
}

type GcLogprob = { token?: string; logProbability?: number };

function candidateOf(json: Record<string, unknown>) {
  return (
    json.candidates as
      | Array<{ content?: { parts?: GcPart[] }; finishReason?: string; logprobsResult?: { chosenCandidates?: GcLogprob[]; topCandidates?: Array<{ candidates?: GcLogprob[] }> } }>
      | undefined
  )?.[0];
}

/** Gemini's logprobsResult (chosen token per step, top candidates per step) as chat's per-token list. */
export function logprobsFromGemini(cand: ReturnType<typeof candidateOf>): TokenLogprob[] | undefined {
  const r = cand?.logprobsResult;
  if (!r?.chosenCandidates) return undefined;
  const entry = (c: GcLogprob) => ({ token: String(c.token ?? ""), logprob: Number(c.logProbability ?? 0) });
  return r.chosenCandidates.map((c, i) => ({ ...entry(c), topLogprobs: (r.topCandidates?.[i]?.candidates ?? []).map(entry) }));
}

export function fromGeminiResponse(json: Record<string, unknown>): CanonicalResponse | null {
  const cand = candidateOf(json);
  const content: OutputPart[] = [];
  let hasCalls = false;
  for (const p of cand?.content?.parts ?? []) {
    if (p.thought) {
      if (typeof p.text === "string" && p.text !== "") {
        const last = content[content.length - 1];
        if (last?.type === "reasoning") last.text += p.text;
        else content.push({ type: "reasoning", origin: "gemini", text: p.text });
      }
      continue;
    }
    const image = drawnImage(p);
    if (image) content.push({ type: "image", source: { kind: "base64", ...image } });
    else if (typeof p.text === "string" && p.text !== "") content.push({ type: "text", text: p.text });
    else if (p.functionCall) {
      hasCalls = true;
      content.push({ type: "tool_call", id: callId(p), signature: p.thoughtSignature, name: p.functionCall.name ?? "", arguments: JSON.stringify(p.functionCall.args ?? {}) });
    }
  }
  if (!cand && !json.promptFeedback) return null;
  const blocked = !cand && !!(json.promptFeedback as { blockReason?: string } | undefined)?.blockReason;
  return {
    id: String(json.responseId ?? ""),
    model: String(json.modelVersion ?? ""),
    content,
    stopReason: blocked ? "content_filter" : stopFromGemini(cand?.finishReason, hasCalls),
    usage: usageFromGemini(json.usageMetadata as GcUsage) ?? makeUsage({}),
    logprobs: logprobsFromGemini(cand),
  };
}

/** Stateful decoder; `done` rides on the chunk with finishReason (it carries the full usage). */
export function createGeminiDecoder(publicModel: string) {
  let started = false;
  let finished = false;
  let calls = 0;
  let usage: Usage | null = null;
  let thinking = false;
  const endThinking = (events: StreamEvent[]) => {
    if (!thinking) return;
    thinking = false;
    events.push({ type: "reasoning_end", origin: "gemini" });
  };

  return {
    push(data: string): UpstreamChunk {
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw invalidUpstreamEvent("not JSON");
      }
      if (json.error) {
        const e = json.error as { message?: string };
        throw new UpstreamStreamError(errors.upstream(`The upstream failed mid-stream: ${String(e.message ?? "unknown error")}`), false);
      }
      if ("modelVersion" in json) json.modelVersion = publicModel;
      const events: StreamEvent[] = [];
      if (finished) return { events, json };
      const u = usageFromGemini(json.usageMetadata as GcUsage);
      const input = u && !u.unreported?.includes("input") ? u : null;
      if (!started) {
        started = true;
        // Every chunk carries the prompt count, the first one too: the start reports it exactly.
        events.push({ type: "start", id: String(json.responseId ?? ""), model: publicModel, inputTokens: input?.inputTokens, cacheReadTokens: input?.cacheReadTokens });
      }
      if (u) {
        usage = u;
        if (input) events.push({ type: "usage", usage: { inputTokens: input.inputTokens } });
      }
      const cand = candidateOf(json);
      for (const p of cand?.content?.parts ?? []) {
        if (p.thought) {
          if (typeof p.text === "string" && p.text !== "") {
            thinking = true;
            events.push({ type: "reasoning_delta", text: p.text });
          }
          continue;
        }
        const image = drawnImage(p);
        if (image) {
          endThinking(events);
          events.push({ type: "image", ...image });
        } else if (typeof p.text === "string" && p.text !== "") {
          endThinking(events);
          events.push({ type: "text_delta", text: p.text });
        } else if (p.functionCall) {
          endThinking(events);
          const index = calls++;
          events.push({ type: "tool_call_start", index, id: callId(p), name: p.functionCall.name ?? "" });
          events.push({ type: "tool_call_delta", index, arguments: JSON.stringify(p.functionCall.args ?? {}) });
        }
      }
      const logprobs = logprobsFromGemini(cand);
      if (logprobs?.length) events.push({ type: "logprobs", content: logprobs });
      const blocked = !cand && (json.promptFeedback as { blockReason?: string } | undefined)?.blockReason;
      if (cand?.finishReason || blocked) {
        endThinking(events);
        finished = true;
        events.push({ type: "done", stopReason: blocked ? "content_filter" : stopFromGemini(cand?.finishReason, calls > 0), usage });
      }
      return { events, json };
    },
    end(): UpstreamChunk | null {
      if (!finished) throw invalidUpstreamEvent("the stream ended early");
      return null;
    },
  };
}
