/**
 * The playground's requests are what each protocol's parser on the gateway accepts, and its
 * stream readers recover text, usage and cost from what each protocol's real encoder writes.
 */
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../gateway/canonical";
import { errors } from "../gateway/errors";
import { chatCompletions, generateContent, messages, responses, type InboundProtocol } from "../gateway/protocols";
import { buildChatRequest, CHAT_PROTOCOLS, mergeUsage, parseChatEvent, SseDecoder, type ChatProtocol, type ChatStreamEvent, type StreamUsage } from "./chat-protocols";

const INBOUND: Record<ChatProtocol, InboundProtocol> = {
  "chat-completions": chatCompletions,
  responses,
  messages,
  "generate-content": generateContent,
};

const turns = [
  { role: "user" as const, text: "Hello there" },
  { role: "assistant" as const, text: "Hi!" },
  { role: "user" as const, text: "Tell me more" },
];

function readAll(protocol: ChatProtocol, sse: string, chunk: number) {
  const dec = new SseDecoder();
  const events: ChatStreamEvent[] = [];
  for (let i = 0; i < sse.length; i += chunk) for (const m of dec.push(sse.slice(i, i + chunk))) events.push(...parseChatEvent(protocol, m));
  let text = "";
  let usage: StreamUsage | undefined;
  for (const e of events) {
    if (e.type === "text") text += e.text;
    if (e.type === "usage") usage = mergeUsage(usage, e.usage);
  }
  return { text, usage, events };
}

describe.each(CHAT_PROTOCOLS.map((p) => p.id))("%s", (protocol) => {
  const inbound = INBOUND[protocol];

  it("builds a request the gateway's parser accepts, with system, temperature and max tokens", () => {
    const r = buildChatRequest(protocol, { model: "demo-chat", system: "Be brief.", temperature: 0.3, maxTokens: 50 }, turns);
    const parsed = inbound.parseRequest(r.body, protocol === "generate-content" ? { pathModel: "demo-chat", stream: true } : undefined);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.stream).toBe(true);
    expect(parsed.value.model).toBe("demo-chat");
    expect(parsed.value.temperature).toBe(0.3);
    expect(parsed.value.maxOutputTokens).toBe(50);
    expect(parsed.value.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const sys = parsed.value.system ?? "";
    expect(sys).toContain("Be brief.");
    if (protocol === "generate-content") expect(r.path).toBe("/v1beta/models/demo-chat:streamGenerateContent?alt=sse");
  });

  it("reads text, usage and cost back from the protocol's own stream encoding", () => {
    const req = buildChatRequest(protocol, { model: "demo-chat", system: "" }, turns);
    const parsed = inbound.parseRequest(req.body, protocol === "generate-content" ? { pathModel: "demo-chat", stream: true } : undefined);
    if (!parsed.ok) throw new Error("request refused");
    const enc = inbound.createStreamEncoder({ model: "demo-chat", request: parsed.value });
    const evs: StreamEvent[] = [
      { type: "start", id: "x", model: "demo-chat", inputTokens: 7 },
      { type: "text_delta", text: "Hello" },
      { type: "usage", usage: { outputTokens: 1 } },
      { type: "text_delta", text: " wörld" },
      { type: "done", stopReason: "end", usage: { inputTokens: 7, outputTokens: 2 }, costMicroUsd: 6_500 },
    ];
    const sse = evs.flatMap((e) => enc.encode(e)).join("");
    for (const size of [1, 7, sse.length]) {
      const { text, usage, events } = readAll(protocol, sse, size);
      expect(text).toBe("Hello wörld");
      expect(usage).toEqual({ inputTokens: 7, outputTokens: 2, costUsd: 0.0065 });
      expect(events.some((e) => e.type === "done")).toBe(true);
    }
  });

  it("reports an in-stream error", () => {
    const req = buildChatRequest(protocol, { model: "demo-chat", system: "" }, turns);
    const parsed = inbound.parseRequest(req.body, protocol === "generate-content" ? { pathModel: "demo-chat", stream: true } : undefined);
    if (!parsed.ok) throw new Error("request refused");
    const enc = inbound.createStreamEncoder({ model: "demo-chat", request: parsed.value });
    const sse = [...enc.encode({ type: "start", id: "x", model: "demo-chat" }), ...enc.encode({ type: "text_delta", text: "Hi" }), ...enc.error(errors.upstream("The upstream stream failed."))].join("");
    const { text, events } = readAll(protocol, sse, 5);
    expect(text).toBe("Hi");
    const err = events.find((e) => e.type === "error");
    expect(err && err.type === "error" && err.message).toBe("The upstream stream failed.");
  });
});

describe("SseDecoder", () => {
  it("joins multi-line data, skips comments, handles CRLF", () => {
    const d = new SseDecoder();
    expect(d.push(": ping\r\n\r\nevent: a\r\ndata: 1\r\ndata: 2\r\n")).toEqual([]);
    expect(d.push("\r\n")).toEqual([{ event: "a", data: "1\n2" }]);
  });

  it("takes a CRLF split across two chunks as one line end", () => {
    const d = new SseDecoder();
    const got = ["data: x\r", "\ndata: y\r\n\r\n"].flatMap((c) => d.push(c));
    expect(got).toEqual([{ event: null, data: "x\ny" }]);
  });
});
