/** What a request's content log records: the canonical prompt (tool calls and results, images inline up to a limit) and the answer, streamed or whole. */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ContentRecord } from "../../views";
import type { CanonicalRequest } from "../canonical";

const queued: Array<{ meta: unknown; build: () => ContentRecord }> = [];
vi.mock("../../content-logs/store", () => ({
  queueContentLog: (_db: unknown, _t: unknown, meta: unknown, build: () => ContentRecord) => queued.push({ meta, build }),
}));
const { ContentCapture, MAX_INLINE_MEDIA_BYTES } = await import("./text-content-log");

const target = { accountId: "a", keyId: "k", userId: null, requestId: "r", policy: { redact: [], builtins: [] } };
const big = "A".repeat(Math.ceil(((MAX_INLINE_MEDIA_BYTES + 10) * 4) / 3));
const req: CanonicalRequest = {
  model: "m",
  stream: true,
  system: "sys",
  tools: [{ name: "weather" }],
  messages: [
    { role: "user", parts: [{ type: "text", text: "look" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" } }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: big } }, { type: "image", source: { kind: "url", url: "https://example.com/a.png" } }] },
    { role: "assistant", parts: [{ type: "tool_call", id: "c0", name: "weather", arguments: '{"city":"Oslo"}' }] },
    { role: "user", parts: [{ type: "tool_result", callId: "c0", content: [{ type: "text", text: "rain" }] }] },
  ],
};
afterEach(() => void queued.splice(0));

describe("content capture", () => {
  it("a stream's answer reassembled: text, reasoning, tool calls in order; written once", () => {
    const c = new ContentCapture(target, req);
    for (const ev of [
      { type: "start", id: "x", model: "m" },
      { type: "reasoning_delta", text: "hmm" },
      { type: "text_delta", text: "Hel" },
      { type: "text_delta", text: "lo" },
      { type: "tool_call_start", index: 0, id: "c1", name: "weather" },
      { type: "tool_call_delta", index: 0, arguments: '{"city":' },
      { type: "tool_call_delta", index: 0, arguments: '"Bergen"}' },
      { type: "done", stopReason: "tool_calls", usage: null },
    ] as const)
      c.observe(ev);
    c.settled(true, undefined);
    c.settled(true, undefined);
    expect(queued).toHaveLength(1);
    expect(queued[0]!.meta).toEqual({ model: "m", stream: true });
    const r = queued[0]!.build();
    expect(r.answer).toEqual({ text: "Hello", reasoning: "hmm", toolCalls: [{ id: "c1", name: "weather", arguments: '{"city":"Bergen"}' }], stopReason: "tool_calls" });
    expect(r.request.system).toBe("sys");
    expect(r.request.tools).toEqual(["weather"]);
    expect(r.request.messages[0]!.parts).toEqual([
      { type: "text", text: "look" },
      { type: "image", mediaType: "image/png", data: "iVBOR" },
      { type: "image", mediaType: "image/png", omittedBytes: expect.any(Number) },
      { type: "image", url: "https://example.com/a.png" },
    ]);
    expect(r.request.messages[1]!.parts).toEqual([{ type: "tool_call", id: "c0", name: "weather", arguments: '{"city":"Oslo"}' }]);
    expect(r.request.messages[2]!.parts).toEqual([{ type: "tool_result", callId: "c0", content: [{ type: "text", text: "rain" }] }]);
  });

  it("a whole answer, and a cut one names why", () => {
    const c = new ContentCapture(target, { ...req, stream: false });
    c.complete([{ type: "text", text: "Hi" }, { type: "tool_call", id: "c2", name: "weather", arguments: "{}" }], "end");
    c.settled(false, undefined);
    expect(queued[0]!.build().answer).toEqual({ text: "Hi", toolCalls: [{ id: "c2", name: "weather", arguments: "{}" }], stopReason: "end" });
    const cut = new ContentCapture(target, req);
    cut.observe({ type: "text_delta", text: "par" });
    cut.settled(true, "client_disconnect");
    expect(queued[1]!.build().answer).toEqual({ text: "par", toolCalls: [], stopReason: null, error: "client_disconnect" });
  });
});
