/**
 * Fake OpenAI Chat Completions upstream (reference/chat-completions.md): POST /v1/chat/completions,
 * Bearer key, JSON or SSE (`data:` only, `[DONE]`, the usage chunk only with include_usage).
 */
import { refuseOpenAIChat } from "./vendor-rules";
import { startFake, words, type FakeTextUpstream, type Protocol, type TextScript } from "./text-fake-core";

export const OPENAI_FAKE_KEY = "sk-upstream-fake-openai";

const finish = (s: TextScript) => (s.toolCalls.length ? "tool_calls" : "stop");
/** prompt_tokens includes cached_tokens (and the cache_write_tokens some compatible upstreams send). */
const usage = (s: TextScript) =>
  s.rawUsage ??
  (s.usage && {
    prompt_tokens: s.usage.input,
    completion_tokens: s.usage.output,
    total_tokens: s.usage.input + s.usage.output,
    prompt_tokens_details: { cached_tokens: s.usage.cacheRead ?? 0, audio_tokens: 0, ...(s.usage.cacheWrite5m ? { cache_write_tokens: s.usage.cacheWrite5m } : {}) },
    completion_tokens_details: { reasoning_tokens: s.usage.reasoning ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  });

export const chatProtocol: Protocol = {
  refuse: (_req, body) => {
    const message = refuseOpenAIChat(body);
    return message ? { status: 400, message } : null;
  },
  match: (path, body) => (path === "/v1/chat/completions" ? { stream: body?.stream === true } : null),
  keyOf: (req) => req.headers.authorization?.replace(/^Bearer /, ""),
  errorBody: (status, message) => ({
    error: { message, type: status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error", param: null, code: null },
  }),
  json: (s, body) => ({
    id: "chatcmpl-fake1",
    object: "chat.completion",
    created: 1731000000,
    model: body.model,
    choices: [
      {
        index: 0,
        finish_reason: finish(s),
        logprobs: null,
        message: {
          role: "assistant",
          content: s.toolCalls.length && !s.text ? null : s.text,
          refusal: null,
          annotations: [],
          ...(s.toolCalls.length
            ? { tool_calls: s.toolCalls.map((t, i) => ({ id: t.id ?? `call_fake${i}`, type: "function", function: { name: t.name, arguments: t.arguments } })) }
            : {}),
        },
      },
    ],
    ...(usage(s) ? { usage: usage(s) } : {}),
    service_tier: "default",
    system_fingerprint: "fp_fake",
  }),
  events: (s, body) => {
    const withUsage = body?.stream_options?.include_usage === true;
    const base = { id: "chatcmpl-fake1", object: "chat.completion.chunk", created: 1731000000, model: body.model, system_fingerprint: "fp_fake" };
    const ev = (delta: unknown, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...(withUsage ? { usage: null } : {}) })}\n\n`;
    const out = [ev({ role: "assistant", content: "", refusal: null })];
    if (s.text) for (const w of words(s.text)) out.push(ev({ content: w }));
    s.toolCalls.forEach((t, i) => {
      out.push(ev({ tool_calls: [{ index: i, id: t.id ?? `call_fake${i}`, type: "function", function: { name: t.name, arguments: "" } }] }));
      const mid = Math.floor(t.arguments.length / 2);
      for (const piece of [t.arguments.slice(0, mid), t.arguments.slice(mid)])
        if (piece) out.push(ev({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    });
    out.push(ev({}, finish(s)));
    if (withUsage && usage(s)) out.push(`data: ${JSON.stringify({ ...base, choices: [], usage: usage(s) })}\n\n`);
    out.push("data: [DONE]\n\n");
    return out;
  },
  truncateAt: (events) => Math.max(1, events.length - 3),
};

export function startFakeOpenAI(apiKey = OPENAI_FAKE_KEY): Promise<FakeTextUpstream> {
  return startFake(chatProtocol, apiKey, "/v1");
}
