/**
 * The playground's chat in each of the four wire protocols, in the browser: build the public
 * route's request from the form, and read that protocol's SSE stream back into text deltas,
 * usage (with the gateway's cost field) and in-stream errors. Parsing each protocol as a real
 * client would keeps the playground honest about what the API sends (docs/decisions).
 */
import { createParser } from "eventsource-parser";

export type ChatProtocol = "chat-completions" | "responses" | "messages" | "generate-content";

export const CHAT_PROTOCOLS: { id: ChatProtocol; label: string; route: string }[] = [
  { id: "chat-completions", label: "OpenAI Chat Completions", route: "POST /v1/chat/completions" },
  { id: "responses", label: "OpenAI Responses", route: "POST /v1/responses" },
  { id: "messages", label: "Anthropic Messages", route: "POST /v1/messages" },
  { id: "generate-content", label: "Gemini generateContent", route: "POST /v1beta/models/{model}:streamGenerateContent" },
];

export interface ChatTurn {
  role: "user" | "assistant";
  text: string;
}

export interface ChatSettings {
  model: string;
  system: string;
  /** undefined = the model's default. */
  temperature?: number;
  maxTokens?: number;
}

export interface ChatRequest {
  /** Public API path and query (the playground proxies it under /api/playground). */
  path: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The streaming request for one protocol. Messages needs max_tokens: 1024 when none is set. */
export function buildChatRequest(protocol: ChatProtocol, s: ChatSettings, turns: ChatTurn[]): ChatRequest {
  const system = s.system.trim();
  switch (protocol) {
    case "chat-completions": {
      const messages = [...(system ? [{ role: "system", content: system }] : []), ...turns.map((t) => ({ role: t.role, content: t.text }))];
      const body: Record<string, unknown> = { model: s.model, messages, stream: true, stream_options: { include_usage: true } };
      if (s.temperature !== undefined) body.temperature = s.temperature;
      if (s.maxTokens !== undefined) body.max_tokens = s.maxTokens;
      return { path: "/v1/chat/completions", body, headers: {} };
    }
    case "responses": {
      const body: Record<string, unknown> = { model: s.model, input: turns.map((t) => ({ role: t.role, content: t.text })), stream: true };
      if (system) body.instructions = system;
      if (s.temperature !== undefined) body.temperature = s.temperature;
      if (s.maxTokens !== undefined) body.max_output_tokens = s.maxTokens;
      return { path: "/v1/responses", body, headers: {} };
    }
    case "messages": {
      const body: Record<string, unknown> = {
        model: s.model,
        max_tokens: s.maxTokens ?? 1024,
        messages: turns.map((t) => ({ role: t.role, content: t.text })),
        stream: true,
      };
      if (system) body.system = system;
      if (s.temperature !== undefined) body.temperature = s.temperature;
      return { path: "/v1/messages", body, headers: { "anthropic-version": "2023-06-01" } };
    }
    case "generate-content": {
      const body: Record<string, unknown> = { contents: turns.map((t) => ({ role: t.role === "assistant" ? "model" : "user", parts: [{ text: t.text }] })) };
      if (system) body.systemInstruction = { parts: [{ text: system }] };
      const cfg: Record<string, unknown> = {};
      if (s.temperature !== undefined) cfg.temperature = s.temperature;
      if (s.maxTokens !== undefined) cfg.maxOutputTokens = s.maxTokens;
      if (Object.keys(cfg).length) body.generationConfig = cfg;
      return { path: `/v1beta/models/${encodeURIComponent(s.model)}:streamGenerateContent?alt=sse`, body, headers: {} };
    }
  }
}

export interface StreamUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** USD as the gateway reports it in the protocol's usage object. */
  costUsd?: number;
}

export type ChatStreamEvent =
  | { type: "text"; text: string }
  | { type: "usage"; usage: StreamUsage }
  | { type: "done" }
  | { type: "error"; message: string; code?: string; status?: number };

export interface SseMessage {
  event: string | null;
  data: string;
}

/**
 * Incremental SSE decoding with `eventsource-parser` (the WHATWG algorithm the gateway's own
 * upstream reader uses): feed text as it arrives, get whole messages back (decision 0008).
 */
export class SseDecoder {
  private pending: SseMessage[] = [];
  private readonly parser = createParser({ onEvent: (e) => this.pending.push({ event: e.event ?? null, data: e.data }) });

  push(text: string): SseMessage[] {
    this.parser.feed(text);
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

type Json = Record<string, any>;

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** One SSE message of a protocol's stream → the events the playground shows. */
export function parseChatEvent(protocol: ChatProtocol, msg: SseMessage): ChatStreamEvent[] {
  if (msg.data === "[DONE]") return [{ type: "done" }];
  let j: Json;
  try {
    j = JSON.parse(msg.data) as Json;
  } catch {
    return [];
  }
  if (j.error && typeof j.error === "object") {
    const e = j.error as Json;
    return [{ type: "error", message: String(e.message ?? "The stream failed."), code: typeof e.code === "string" ? e.code : typeof e.type === "string" ? e.type : undefined, status: num(e.code) }];
  }
  switch (protocol) {
    case "chat-completions": {
      const out: ChatStreamEvent[] = [];
      const delta = j.choices?.[0]?.delta?.content;
      if (typeof delta === "string" && delta) out.push({ type: "text", text: delta });
      if (j.usage) out.push({ type: "usage", usage: { inputTokens: num(j.usage.prompt_tokens), outputTokens: num(j.usage.completion_tokens), costUsd: num(j.usage.cost_usd) } });
      return out;
    }
    case "responses": {
      const type = j.type ?? msg.event;
      if (type === "response.output_text.delta" && typeof j.delta === "string") return [{ type: "text", text: j.delta }];
      if (type === "response.completed" || type === "response.incomplete") {
        const u = j.response?.usage;
        const out: ChatStreamEvent[] = [];
        if (u) out.push({ type: "usage", usage: { inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens), costUsd: num(u.cost_usd) } });
        out.push({ type: "done" });
        return out;
      }
      if (type === "error") return [{ type: "error", message: String(j.message ?? "The stream failed."), code: typeof j.code === "string" ? j.code : undefined }];
      if (type === "response.failed") return [{ type: "error", message: String(j.response?.error?.message ?? "The response failed.") }];
      return [];
    }
    case "messages": {
      const type = j.type ?? msg.event;
      if (type === "content_block_delta" && j.delta?.type === "text_delta") return [{ type: "text", text: String(j.delta.text ?? "") }];
      if (type === "message_start" && j.message?.usage) return [{ type: "usage", usage: { inputTokens: num(j.message.usage.input_tokens) } }];
      if (type === "message_delta" && j.usage) {
        return [{ type: "usage", usage: { inputTokens: num(j.usage.input_tokens), outputTokens: num(j.usage.output_tokens), costUsd: num(j.usage.cost_usd) } }];
      }
      if (type === "message_stop") return [{ type: "done" }];
      return [];
    }
    case "generate-content": {
      const out: ChatStreamEvent[] = [];
      const parts = j.candidates?.[0]?.content?.parts;
      if (Array.isArray(parts)) for (const p of parts) if (typeof p?.text === "string" && p.text) out.push({ type: "text", text: p.text });
      const u = j.usageMetadata;
      if (u) out.push({ type: "usage", usage: { inputTokens: num(u.promptTokenCount), outputTokens: num(u.candidatesTokenCount), costUsd: num(u.costUsd) } });
      if (j.candidates?.[0]?.finishReason) out.push({ type: "done" });
      return out;
    }
  }
}

/** Later usage reports fill in what earlier ones left out (messages sends input first, output last). */
export function mergeUsage(a: StreamUsage | undefined, b: StreamUsage): StreamUsage {
  return {
    inputTokens: b.inputTokens ?? a?.inputTokens,
    outputTokens: b.outputTokens ?? a?.outputTokens,
    costUsd: b.costUsd ?? a?.costUsd,
  };
}
