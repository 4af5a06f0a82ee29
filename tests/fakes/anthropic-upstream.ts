/**
 * Fake Anthropic Messages upstream (reference/messages.md): POST /v1/messages, x-api-key,
 * JSON or SSE with `event:` lines (message_start … message_stop, a ping in the middle).
 */
import { refuseAnthropic } from "./vendor-rules";
import { startFake, words, type FakeTextUpstream, type Protocol, type TextScript } from "./text-fake-core";

export const ANTHROPIC_FAKE_KEY = "sk-upstream-fake-anthropic";

const TYPES: Record<number, string> = { 400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error" };
const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const stop = (s: TextScript) => (s.toolCalls.length ? "tool_use" : "end_turn");
/** input_tokens excludes cache reads and writes; writes come in total and split by TTL. */
const amUsage = (s: TextScript): Record<string, unknown> => {
  if (s.rawUsage) return s.rawUsage;
  const u = s.usage;
  const read = u?.cacheRead ?? 0;
  const w5 = u?.cacheWrite5m ?? 0;
  const w1 = u?.cacheWrite1h ?? 0;
  return {
    input_tokens: (u?.input ?? 0) - read - w5 - w1,
    output_tokens: u?.output ?? 0,
    cache_creation_input_tokens: w5 + w1,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: w5, ephemeral_1h_input_tokens: w1 },
    ...(u?.reasoning ? { output_tokens_details: { thinking_tokens: u.reasoning } } : {}),
    service_tier: "standard",
  };
};

/**
 * Anthropic's prompt-caching rules: `cache_control` is `{type:"ephemeral", ttl?: "5m"|"1h"}`, at
 * most 4 breakpoints per request, and 1-hour entries must come before 5-minute ones (the
 * prompt is tools → system → messages).
 */
function refuseCacheControl(_req: unknown, body: any): { status: number; message: string } | null {
  const refuse = (message: string) => ({ status: 400, message });
  const marks: Array<{ ttl?: unknown; type?: unknown }> = [];
  const visit = (b: any) => {
    if (b && typeof b === "object" && b.cache_control !== undefined) marks.push(b.cache_control);
    if (Array.isArray(b?.content)) b.content.forEach(visit);
  };
  (body?.tools ?? []).forEach(visit);
  if (Array.isArray(body?.system)) body.system.forEach(visit);
  for (const m of body?.messages ?? []) if (Array.isArray(m.content)) m.content.forEach(visit);
  if (marks.length > 4) return refuse(`A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`);
  let seen5m = false;
  for (const c of marks) {
    if (c?.type !== "ephemeral") return refuse("cache_control.type: Input should be 'ephemeral'");
    if (c.ttl !== undefined && c.ttl !== "5m" && c.ttl !== "1h") return refuse("cache_control.ttl: Input should be '5m' or '1h'");
    if ((c.ttl ?? "5m") === "5m") seen5m = true;
    else if (seen5m) return refuse("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block");
  }
  return null;
}

export const anthropicProtocol: Protocol = {
  refuse: (req, body) => {
    const content = refuseAnthropic(body);
    return content ? { status: 400, message: content } : refuseCacheControl(req, body);
  },
  match: (path, body) => (path.split("?")[0] === "/v1/messages" ? { stream: body?.stream === true } : null),
  keyOf: (req) => req.headers["x-api-key"] as string | undefined,
  errorBody: (status, message) => ({ type: "error", error: { type: TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message }, request_id: "req_fake" }),
  json: (s, body) => ({
    id: "msg_fake1",
    type: "message",
    role: "assistant",
    model: body.model,
    content: [
      ...(s.thinking ? [{ type: "thinking", ...s.thinking }] : []),
      ...(s.text ? [{ type: "text", text: s.text }] : []),
      ...s.toolCalls.map((t, i) => ({ type: "tool_use", id: t.id ?? `toolu_fake${i}`, name: t.name, input: JSON.parse(t.arguments) })),
    ],
    stop_reason: stop(s),
    stop_sequence: null,
    usage: amUsage(s),
  }),
  events: (s, body) => {
    const out = [
      ev("message_start", {
        type: "message_start",
        message: { id: "msg_fake1", type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...amUsage(s), output_tokens: 1 } },
      }),
    ];
    let index = 0;
    if (s.thinking) {
      out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
      out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: s.thinking.thinking } }));
      out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: s.thinking.signature } }));
      out.push(ev("content_block_stop", { type: "content_block_stop", index }));
      index++;
    }
    if (s.text) {
      out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      out.push(ev("ping", { type: "ping" }));
      for (const w of words(s.text)) out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: w } }));
      out.push(ev("content_block_stop", { type: "content_block_stop", index }));
      index++;
    }
    s.toolCalls.forEach((t, i) => {
      out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: t.id ?? `toolu_fake${i}`, name: t.name, input: {} } }));
      // A call without input streams one empty partial_json and nothing else, as Claude does.
      const mid = Math.floor(t.arguments.length / 2);
      const pieces = t.arguments === "{}" ? [""] : ["", t.arguments.slice(0, mid), t.arguments.slice(mid)];
      for (const piece of pieces)
        out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
      out.push(ev("content_block_stop", { type: "content_block_stop", index }));
      index++;
    });
    out.push(ev("message_delta", { type: "message_delta", delta: { stop_reason: stop(s), stop_sequence: null }, usage: { output_tokens: amUsage(s).output_tokens } }));
    out.push(ev("message_stop", { type: "message_stop" }));
    return out;
  },
  truncateAt: (events) => Math.max(1, events.length - 2),
};

export function startFakeAnthropic(): Promise<FakeTextUpstream> {
  return startFake(anthropicProtocol, ANTHROPIC_FAKE_KEY, "");
}
