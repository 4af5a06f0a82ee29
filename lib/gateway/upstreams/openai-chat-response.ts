/** OpenAI Chat Completions wire response and SSE chunks → canonical (reference/chat-completions.md). */
import type { CanonicalResponse, OutputPart, StopReason, StreamEvent, Usage } from "../canonical";
import { errors } from "../errors";
import { makeUsage } from "../usage";
import { normalizeVendorUsage, VENDOR_PROFILES, type VendorProfile } from "./openai-vendors";
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

/**
 * prompt_tokens includes cached_tokens (and cache_write_tokens); completion_tokens includes
 * reasoning. A vendor's usage is first put in those meanings, in place (openai-vendors.ts), so a
 * passthrough client reads the same counts we bill; `raw` keeps what the vendor sent.
 */
export function usageFromOpenAI(u: unknown, vendor: VendorProfile = VENDOR_PROFILES.openai): Usage | null {
  if (!u || typeof u !== "object") return null;
  const x = u as Record<string, unknown>;
  let raw: unknown = u;
  let reportedCost: number | undefined;
  if (vendor !== VENDOR_PROFILES.openai) {
    raw = structuredClone(x);
    reportedCost = normalizeVendorUsage(vendor, x);
  }
  const pd = (x.prompt_tokens_details && typeof x.prompt_tokens_details === "object" ? x.prompt_tokens_details : {}) as Record<string, unknown>;
  const cd = (x.completion_tokens_details && typeof x.completion_tokens_details === "object" ? x.completion_tokens_details : {}) as Record<string, unknown>;
  const usage = makeUsage(
    { inputTotal: x.prompt_tokens, cacheRead: pd.cached_tokens, cacheWrite: pd.cache_write_tokens, outputTotal: x.completion_tokens, reasoning: cd.reasoning_tokens },
    raw,
  );
  if (reportedCost !== undefined) usage.reportedCostMicroUsd = reportedCost;
  return usage;
}

/** The reasoning text of a message or delta, from the first of the vendor's fields that has it. */
function reasoningOf(m: Record<string, unknown>, vendor: VendorProfile): string {
  for (const f of vendor.reasoningText) if (typeof m[f] === "string" && m[f] !== "") return m[f];
  return "";
}

/**
 * Content as a string, or as chunks (Mistral's reasoning models: `{type: "thinking", thinking:
 * [{type: "text", text}]}` beside `{type: "text", text}`): its text and its reasoning text.
 */
function contentOf(content: unknown): { text: string; reasoning: string } {
  if (typeof content === "string") return { text: content, reasoning: "" };
  let text = "";
  let reasoning = "";
  if (Array.isArray(content))
    for (const c of content as Array<{ type?: string; text?: unknown; thinking?: unknown }>) {
      if (c?.type === "text" && typeof c.text === "string") text += c.text;
      else if (c?.type === "thinking" && Array.isArray(c.thinking))
        for (const t of c.thinking as Array<{ text?: unknown }>) if (typeof t?.text === "string") reasoning += t.text;
    }
  return { text, reasoning };
}

export function fromOpenAIChatResponse(json: Record<string, unknown>, vendor: VendorProfile = VENDOR_PROFILES.openai): CanonicalResponse | null {
  const choice = (json.choices as Array<Record<string, unknown>> | undefined)?.[0];
  const message = choice?.message as { content?: unknown; tool_calls?: unknown; refusal?: unknown } | undefined;
  if (!choice || !message) return null;
  const content: OutputPart[] = [];
  // OpenAI-compatible servers (DeepSeek, vLLM, OpenRouter) return reasoning text beside the content.
  const body = contentOf(message.content);
  const reasoning = reasoningOf(message, vendor) || body.reasoning;
  if (reasoning) content.push({ type: "reasoning", origin: "other", text: reasoning });
  if (body.text !== "") content.push({ type: "text", text: body.text });
  else if (typeof message.refusal === "string" && message.refusal) content.push({ type: "text", text: message.refusal });
  for (const tc of (message.tool_calls as Array<{ id?: string; function?: { name?: string; arguments?: string } }>) ?? [])
    content.push({ type: "tool_call", id: tc.id ?? "", name: tc.function?.name ?? "", arguments: tc.function?.arguments ?? "" });
  return {
    id: String(json.id ?? ""),
    model: String(json.model ?? ""),
    content,
    stopReason: stopFromOpenAI(choice.finish_reason),
    usage: usageFromOpenAI(json.usage, vendor) ?? makeUsage({}),
  };
}

/**
 * Stateful decoder of CC chunks. The terminal `done` is emitted on the usage chunk (we always
 * ask for it) so a passthrough can put the cost into that very chunk, or on `[DONE]` when an
 * upstream sent no usage.
 */
export function createOpenAIChatDecoder(publicModel: string, vendor: VendorProfile = VENDOR_PROFILES.openai) {
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
      const delta = choice?.delta as { content?: unknown; refusal?: unknown; tool_calls?: unknown } | undefined;
      if (delta) {
        const body = contentOf(delta.content);
        const r = reasoningOf(delta, vendor) || body.reasoning;
        if (r !== "") {
          thinking = true;
          events.push({ type: "reasoning_delta", text: r });
        }
        // One delta may end the reasoning and start the answer (Mistral's chunks do).
        if (thinking && (body.text !== "" || delta.tool_calls)) {
          thinking = false;
          events.push({ type: "reasoning_end", origin: "other" });
        }
        if (body.text !== "") events.push({ type: "text_delta", text: body.text });
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
      // Groq streams its usage in x_groq: a passthrough client reads it where OpenAI puts it.
      if (vendor.usage.streamUsageAt === "x_groq" && json.usage == null && (json.x_groq as { usage?: unknown } | undefined)?.usage)
        json.usage = (json.x_groq as { usage: unknown }).usage;
      const u = usageFromOpenAI(json.usage, vendor);
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
